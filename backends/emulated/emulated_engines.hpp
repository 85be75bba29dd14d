// The moving parts of an emulated device: engines that are busy for a
// modelled time, in-order streams that feed them, and events.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace alloy::emulation {

/// A copy engine or the compute engine: one command at a time, each for its
/// modelled duration. The waiting is sleeping, so emulation costs no CPU.
class Engine {
 public:
  /// Runs `work` (the real data movement, if any) and keeps the engine busy
  /// until `seconds` after it took it, or as long as `work` took if longer.
  void occupy(double seconds, const std::function<void()>& work);

 private:
  std::mutex mutex_;
};

/// Marks a point in a stream; complete once the stream has reached it.
class StreamEvent {
 public:
  explicit StreamEvent(bool timed) : timed_(timed) {}

  bool timed() const { return timed_; }
  /// Recorded on a stream that has yet to reach it.
  void recorded();
  void reached();
  /// Until reached; at once if never recorded (as the real APIs do).
  void wait();
  bool pending() const;
  /// When it was reached, in steady-clock nanoseconds; -1 before.
  std::int64_t reached_ns() const;

 private:
  const bool timed_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool pending_ = false;
  std::int64_t reached_ns_ = -1;
};

/// An in-order stream: its own thread runs its commands one after another.
class Stream {
 public:
  explicit Stream(int device);
  /// Finishes what was submitted, then stops.
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int device() const { return device_; }
  void submit(std::function<void()> command);
  /// Until every command submitted so far has run.
  void drain();

 private:
  void work();

  const int device_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> commands_;
  bool running_ = false;  ///< a command is being run
  bool stopping_ = false;
  std::thread worker_;
};

std::int64_t steady_now_ns();

}  // namespace alloy::emulation
