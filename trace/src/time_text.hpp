// Durations, shares and sizes as the report prints them (internal to the runtime).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace alloy::detail {

/// "812 ns", "41.2 us", "3.07 ms", "2.51 s": three significant figures.
inline std::string duration_text(std::uint64_t ns) {
  const double value = static_cast<double>(ns);
  char text[32];
  if (ns < 1000) std::snprintf(text, sizeof text, "%.0f ns", value);
  else if (ns < 1000000) std::snprintf(text, sizeof text, "%.3g us", value * 1e-3);
  else if (ns < 1000000000) std::snprintf(text, sizeof text, "%.3g ms", value * 1e-6);
  else std::snprintf(text, sizeof text, "%.3g s", value * 1e-9);
  return text;
}

/// "62.1%".
inline std::string percent_text(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", fraction * 100.0);
  return text;
}

/// "12.0 MiB": device memory, where a MiB is the unit that reads.
inline std::string mebibytes_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace alloy::detail
