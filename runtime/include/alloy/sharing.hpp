// Sharing devices between jobs (docs/sharing.md): what an executor's work
// may expect, the memory it may take, and what it sees of other jobs.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// An executor's share of each of its devices' memory
/// (ExecutorOptions::memory_share): a fraction of the device's memory, or a
/// byte count.
struct MemoryShare {
  double fraction = 0;     ///< in (0, 1]; 0: `bytes` instead
  std::size_t bytes = 0;   ///< used when `fraction` is 0

  /// What the share comes to on a device of `device_memory` bytes.
  std::size_t on(std::size_t device_memory) const;
};

/// One job (an executor, of this process or another) on a device, as
/// Executor::jobs_on reports it.
struct DeviceJob {
  std::int32_t process = 0;  ///< its process id
  PriorityClass priority_class = PriorityClass::normal;
  /// Its commands handed in and not yet complete, as critical and background
  /// jobs count them (0 for a normal job).
  std::uint64_t in_flight = 0;
  std::size_t memory_in_use = 0;       ///< bytes its buffers' replicas take there
  std::size_t memory_share = 0;        ///< bytes; 0: it declared none
};

}  // namespace alloy
