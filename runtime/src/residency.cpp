// The device memory cap setting.
#include "residency.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "alloy/error.hpp"

namespace alloy::detail {

std::optional<std::size_t> parse_device_memory_limit(std::string_view text) {
  // from_chars takes no blanks and no sign, and reports overflow: " -1" and
  // 10^23 are mistakes, not "no cap".
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  std::uint64_t scale = 1;
  if (error == std::errc() && end - stop == 1) {
    switch (*stop) {
      case 'K': case 'k': scale = std::uint64_t{1} << 10; break;
      case 'M': case 'm': scale = std::uint64_t{1} << 20; break;
      case 'G': case 'g': scale = std::uint64_t{1} << 30; break;
      default: return std::nullopt;
    }
  } else if (error != std::errc() || stop != end) {
    return std::nullopt;
  }
  if (value == 0 || value > std::numeric_limits<std::size_t>::max() / scale) return std::nullopt;
  return static_cast<std::size_t>(value * scale);
}

std::optional<std::size_t> device_memory_limit_from_environment() {
  const char* text = std::getenv("ALLOY_DEVICE_MEMORY_LIMIT");
  if (!text || !*text) return std::nullopt;
  const std::optional<std::size_t> limit = parse_device_memory_limit(text);
  if (!limit) {
    throw InvalidArgument(std::string("ALLOY_DEVICE_MEMORY_LIMIT=\"") + text +
                          "\" is not a size; use a positive byte count with an optional K, M or G "
                          "suffix and no blanks, e.g. 64M, below 16 EiB, or unset it");
  }
  return limit;
}

std::string describe_bytes(std::size_t bytes) {
  static constexpr const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace alloy::detail
