// Completion and timing of one asynchronous command.
#pragma once

#include <cstdint>

namespace alloy {

/// Device timestamps in nanoseconds on the device's clock; only differences
/// between timestamps of one device are meaningful.
struct EventTiming {
  std::uint64_t queued_ns = 0;
  std::uint64_t started_ns = 0;
  std::uint64_t ended_ns = 0;

  std::uint64_t duration_ns() const { return ended_ns - started_ns; }
};

/// Thread-safe. Waiting on a failed command throws the backend's error.
/// Must not outlive its Runtime.
class Event {
 public:
  virtual ~Event() = default;

  virtual void wait() = 0;
  virtual bool is_complete() const = 0;
  /// Waits for completion, then reads the timestamps.
  virtual EventTiming timing() = 0;
};

}  // namespace alloy
