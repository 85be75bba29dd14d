// Completion and timing of one asynchronous command.
#pragma once

#include <cstdint>
#include <functional>

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
  /// Asks the backend to call `callback` once, when the command has
  /// completed or failed: on a thread of the driver's, or at once on the
  /// calling thread if it has already. The callback must return quickly and
  /// call no backend function (CUDA and HIP forbid it there); wait() then
  /// tells success from failure without blocking. Ask while the command's
  /// queue lives. Returns false, without calling it, where the backend has
  /// no completion callbacks: the caller polls is_complete() instead.
  /// Throws, having registered nothing, where the driver refuses.
  virtual bool on_complete(std::function<void()> callback) {
    (void)callback;
    return false;
  }
};

}  // namespace alloy
