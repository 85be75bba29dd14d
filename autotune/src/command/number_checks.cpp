#include "number_checks.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

namespace alloy::autotune::command {
namespace {

/// 0.5, 60, 1e+06: as short as the value allows.
std::string readable(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

/// The value of `text` when all of it is a finite number.
std::optional<double> parse_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

CLI::Validator whole_number(std::uint64_t low, std::uint64_t high) {
  const std::string wanted = high == UINT64_MAX
                                 ? "a whole number of at least " + std::to_string(low)
                                 : "a whole number from " + std::to_string(low) + " to " + std::to_string(high);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || stop != end || value < low || value > high) {
          return "must be " + wanted + ", not " + text;
        }
        return {};
      },
      wanted);
}

CLI::Validator at_least(double low, bool open) {
  const std::string wanted = (open ? "more than " : "at least ") + readable(low);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::optional<double> value = parse_number(text);
        if (!value || *value < low || (open && *value == low)) return "must be " + wanted + ", not " + text;
        return {};
      },
      wanted);
}

CLI::Validator between(double low, double high) {
  const std::string wanted = "from " + readable(low) + " to " + readable(high);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const std::optional<double> value = parse_number(text);
        if (!value || *value < low || *value > high) return "must be a number " + wanted + ", not " + text;
        return {};
      },
      wanted);
}

}  // namespace alloy::autotune::command
