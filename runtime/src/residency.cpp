// The device memory cap setting.
#include "residency.hpp"

#include <cstdio>
#include <cstdlib>

#include "alloy/error.hpp"

namespace alloy::detail {

std::optional<std::size_t> device_memory_limit_from_environment() {
  const char* text = std::getenv("ALLOY_DEVICE_MEMORY_LIMIT");
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  std::size_t scale = 1;
  if (end != text && *end != '\0' && end[1] == '\0') {
    switch (*end) {
      case 'K': case 'k': scale = std::size_t{1} << 10; ++end; break;
      case 'M': case 'm': scale = std::size_t{1} << 20; ++end; break;
      case 'G': case 'g': scale = std::size_t{1} << 30; ++end; break;
      default: break;
    }
  }
  if (end == text || *end != '\0' || text[0] == '-' || value == 0 ||
      value > static_cast<unsigned long long>(-1) / scale) {
    throw InvalidArgument(std::string("ALLOY_DEVICE_MEMORY_LIMIT=\"") + text +
                          "\" is not a size; use a positive byte count with an optional K, M or G "
                          "suffix, e.g. 64M, or unset it");
  }
  return static_cast<std::size_t>(value) * scale;
}

std::string describe_bytes(std::size_t bytes) {
  static constexpr const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace alloy::detail
