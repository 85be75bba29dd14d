// The slice time: option, environment, default.
#include "sharing/slice_time.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "alloy/error.hpp"

namespace alloy::detail {

std::chrono::microseconds slice_time_or_environment(std::optional<std::chrono::microseconds> chosen) {
  if (chosen) {
    if (chosen->count() <= 0) {
      throw InvalidArgument("ExecutorOptions::slice_time is " + std::to_string(chosen->count()) +
                            " us; give a time above 0, or leave it unset (" +
                            std::to_string(default_slice_time.count()) + " us)");
    }
    return *chosen;
  }
  const char* text = std::getenv("ALLOY_SLICE_MS");
  if (text == nullptr || *text == '\0') return default_slice_time;
  char* end = nullptr;
  const double milliseconds = std::strtod(text, &end);
  if (*end != '\0' || !std::isfinite(milliseconds) || milliseconds * 1000 < 1) {
    throw InvalidArgument(std::string("ALLOY_SLICE_MS=\"") + text +
                          "\" is no slice time; give milliseconds of at least 0.001 (\"0.25\"), or unset it (" +
                          std::to_string(default_slice_time.count()) + " us)");
  }
  return std::chrono::microseconds(static_cast<std::int64_t>(std::llround(milliseconds * 1000)));
}

}  // namespace alloy::detail
