// What an executor's work may expect when jobs share a device
// (docs/sharing.md).
#pragma once

#include <optional>
#include <string_view>

namespace alloy {

/// Declared per executor (ExecutorOptions::priority_class, else
/// ALLOY_PRIORITY_CLASS): how its device work ranks against other
/// executors' on the same device.
enum class PriorityClass {
  /// Latency first: its kernels start before other classes' kernels that
  /// wait for the device (a kernel already running is not preempted).
  critical,
  /// Ranks between the other two; what an executor is unless told.
  normal,
  /// Throughput: its kernels start only when no other class's wait.
  background,
};

const char* to_string(PriorityClass priority_class);
/// "critical", "normal" or "background", in any letter case; nullopt for
/// anything else.
std::optional<PriorityClass> parse_priority_class(std::string_view text);

}  // namespace alloy
