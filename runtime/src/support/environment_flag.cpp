// Yes/no settings read from the environment.
#include "environment_flag.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include "alloy/error.hpp"

namespace alloy::detail {

std::optional<bool> parse_flag(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static constexpr std::array<std::string_view, 4> yes{"1", "true", "yes", "on"};
  static constexpr std::array<std::string_view, 4> no{"0", "false", "no", "off"};
  if (std::find(yes.begin(), yes.end(), lower) != yes.end()) return true;
  if (std::find(no.begin(), no.end(), lower) != no.end()) return false;
  return std::nullopt;
}

std::string not_a_flag(const char* variable, std::string_view text) {
  return std::string(variable) + "=\"" + std::string(text) +
         "\" is neither on nor off; use 1, true, yes or on to turn it on, 0, false, no or off (or "
         "unset it) to leave it off";
}

bool flag_from_environment(const char* variable) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return false;
  const std::optional<bool> value = parse_flag(text);
  if (!value) throw InvalidArgument(not_a_flag(variable, text));
  return *value;
}

}  // namespace alloy::detail
