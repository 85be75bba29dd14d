// The moving parts of an emulated device: engines that are busy for a
// modelled time, in-order streams that feed them, and events.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

namespace alloy::emulation {

/// A copy engine or the compute engine: one command at a time, each for its
/// modelled duration. The waiting is sleeping, so emulation costs no CPU.
/// Commands waiting for it start by their stream's priority (lower numbers
/// first, as CUDA and HIP rank streams), then in the order they came: a
/// GPU's hardware queues take equal work in turn, and a ranked stream's
/// kernels go before others' that wait, never preempting one that runs.
class Engine {
 public:
  /// Runs `work` (the real data movement, if any) and keeps the engine busy
  /// until `seconds` after it took it, or as long as `work` took if longer.
  /// On a stream's thread, "took it" is on the modelled timeline: when the
  /// command became ready there (Stream) or the engine's last command ended
  /// there, the later; so the host's wake-up latency after each command
  /// does not add up over back-to-back commands, as it does not on a GPU.
  void occupy(double seconds, const std::function<void()>& work, int priority = 0);

 private:
  void release(std::chrono::steady_clock::time_point end);

  std::mutex mutex_;
  std::condition_variable freed_;
  bool busy_ = false;
  std::chrono::steady_clock::time_point free_at_{};  ///< where its last command ended, modelled
  std::uint64_t arrivals_ = 0;
  std::set<std::pair<int, std::uint64_t>> waiting_;  ///< (priority, arrival)
};

/// Marks points in streams. Each record captures a new point; waits and
/// queries refer to the latest record at the time they are made, as
/// cuEventRecord documents. Shared: a stream that will signal an event keeps
/// it alive after its handle is destroyed.
class StreamEvent {
 public:
  explicit StreamEvent(bool timed) : timed_(timed) {}

  bool timed() const { return timed_; }
  /// A new record; returns its number, which reached() is later given.
  std::uint64_t record();
  void reached(std::uint64_t record_number);
  /// The latest record's number (0: never recorded).
  std::uint64_t latest_record() const;
  /// Until record `record_number` has been reached (at once for 0).
  void wait_for(std::uint64_t record_number);
  /// Until the latest record has been reached.
  void wait() { wait_for(latest_record()); }
  bool pending() const;
  /// When the latest record was reached, in steady-clock nanoseconds; -1
  /// before (also when never recorded).
  std::int64_t reached_ns() const;

 private:
  const bool timed_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t recorded_ = 0;
  /// Records not reached yet. Records on different streams may be reached
  /// out of order, so one reached record says nothing of an earlier one.
  std::set<std::uint64_t> outstanding_;
  std::int64_t reached_ns_ = -1;
};

/// An in-order stream: its own thread runs its commands one after another,
/// never holding the stream's lock while a command runs.
class Stream {
 public:
  /// `priority`: how its kernels rank for the device's compute engine.
  explicit Stream(int device, int priority = 0);
  /// Finishes what was submitted, then stops.
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int device() const { return device_; }
  int priority() const { return priority_; }
  void submit(std::function<void()> command);
  /// Until every command submitted before the call has run (later ones
  /// may still be queued).
  void drain();

 private:
  void work();

  const int device_;
  const int priority_;
  std::mutex mutex_;
  std::condition_variable changed_;
  struct Command {
    std::function<void()> run;
    std::chrono::steady_clock::time_point submitted;
  };
  std::deque<Command> commands_;
  std::uint64_t submitted_ = 0;
  std::uint64_t finished_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

std::int64_t steady_now_ns();

}  // namespace alloy::emulation
