// What a traced executor records: every command its lanes submit, every host
// task, and the scheduling facts of each task (internal to the runtime).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/trace.hpp"
#include "lanes.hpp"

namespace alloy::detail {

/// The task the commands a thread submits belong to, and what its own
/// command (the kernel, copy or fill it is) is told of.
struct TraceAttribution {
  std::uint64_t task = 0;
  std::string name;  ///< "task 3 'scale' (kernel)"
  std::chrono::steady_clock::time_point run_submitted;
  std::vector<std::uint64_t> after;
  std::string policy;  ///< SchedulingPolicy's name, or "pinned"
  std::optional<double> predicted_seconds;
  std::string configuration;
  std::string profile_match;
  double flops = 0;         ///< TaskOptions::flops
  std::uint64_t bytes = 0;  ///< TaskOptions::bytes
};

class TraceRecorder {
 public:
  TraceRecorder(const std::vector<Device*>& devices, unsigned compute_lanes);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  /// Records what device `device`'s lanes submit.
  void observe(std::size_t device, DeviceLanes& lanes);

  /// While it lives, commands this thread submits belong to the task; the
  /// one submitted after own_command_next() is the task's own.
  class Scope {
   public:
    Scope(TraceRecorder* recorder, TraceAttribution attribution);  ///< nullptr: records nothing
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    void own_command_next() { own_next_ = true; }

   private:
    friend class TraceRecorder;
    TraceRecorder* recorder_;
    TraceAttribution attribution_;
    bool own_next_ = false;
    Scope* outer_;
  };

  /// A host task that ran on this thread from `started` to `ended`, ready
  /// (its inputs at home) since `ready`.
  void host_task(TraceAttribution attribution, std::chrono::steady_clock::time_point ready,
                 std::chrono::steady_clock::time_point started, std::chrono::steady_clock::time_point ended);

  /// Everything recorded so far, on the host's clock; waits for the
  /// commands still running. Commands that failed are left out.
  Trace trace();

 private:
  class LaneObserver;
  struct Command {
    std::size_t device;
    const std::string* lane;
    TraceSlice slice;  ///< without its times
    std::uint64_t enqueued_ns;
    std::shared_ptr<Event> event;
    EventTiming timing;  ///< once read
    bool timed = false;
  };

  std::uint64_t since_start(std::chrono::steady_clock::time_point time) const;
  void submitted(std::size_t device, const std::string& lane, const SubmittedCommand& command);
  std::string host_lane();  ///< this thread's, under mutex_

  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
  std::vector<TraceDevice> devices_;
  std::vector<std::unique_ptr<LaneObserver>> observers_;
  std::mutex reading_;  ///< one trace() at a time: it times commands outside mutex_
  std::mutex mutex_;
  std::uint64_t next_id_ = 1;
  std::deque<Command> commands_;  ///< appended while trace() reads those before
  std::vector<TraceSlice> host_slices_;
  std::map<std::thread::id, std::string> host_lanes_;
};

}  // namespace alloy::detail
