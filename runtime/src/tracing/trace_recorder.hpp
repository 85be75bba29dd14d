// What a traced executor records: every command its lanes submit, every host
// task, and the scheduling facts of each task (internal to the runtime).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/trace.hpp"
#include "devices/lanes.hpp"
#include "record_arena.hpp"
#include "support/chunked_log.hpp"

namespace alloy::detail {

/// What the trace needs of a task, copied when it starts: cheap to copy
/// (its label is formatted only when the trace is read). Its text and list
/// are kept by the recorder (TraceRecorder::keep, ids), so that a record is
/// small and trivially destroyed: a trace keeps one per task.
struct TraceAttribution {
  std::uint64_t task = 0;
  std::uint64_t number = 0;     ///< as its label counts: its id, or its id in its graph
  std::uint32_t graph_run = 0;  ///< RunRecord::number; 0: a one-task call
  std::string_view name;        ///< TaskOptions::name
  const char* kind = "";        ///< Task::kind_name()
  std::chrono::steady_clock::time_point run_submitted;
  std::span<const std::uint64_t> after;
  const char* policy = "";  ///< SchedulingPolicy's name, or "pinned"
  std::optional<double> predicted_seconds;
  std::string_view configuration;
  const char* profile_match = nullptr;  ///< ProfileMatch's name; nullptr: "fixed"
  double flops = 0;         ///< TaskOptions::flops
  std::uint64_t bytes = 0;  ///< TaskOptions::bytes

  /// As ExecutorState::label gives it: "task 3 'scale' (kernel) of graph run 2".
  std::string label() const;
};

class TraceRecorder {
 public:
  static constexpr std::uint64_t no_task = ~std::uint64_t{0};

  TraceRecorder(const std::vector<Device*>& devices, unsigned compute_lanes);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  /// Records what device `device`'s lanes submit.
  void observe(std::size_t device, DeviceLanes& lanes);
  /// A copy of `text` that lives as long as the recorder (for TraceAttribution).
  std::string_view keep(std::string_view text);
  /// Room for `count` task ids that lives as long as the recorder.
  std::span<std::uint64_t> ids(std::size_t count);

  /// While it lives, commands this thread submits belong to the task; the
  /// one submitted after next_command_is_the_tasks_own() is the task's own.
  class Scope {
   public:
    Scope(TraceRecorder* recorder, TraceAttribution attribution);  ///< nullptr: records nothing
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    /// Adds what is learnt after the scope opened (policy, prediction,
    /// configuration) to its facts, kept already or not: `edit(facts)`.
    template <class Edit>
    void describe(Edit&& edit) {
      if (recorder_ == nullptr) return;
      if (index_ == no_task) {
        edit(attribution_);
        return;
      }
      std::lock_guard lock(recorder_->mutex_);  // trace() may be reading them
      edit(recorder_->tasks_[index_]);
    }

   private:
    friend class TraceRecorder;
    TraceRecorder* recorder_;
    TraceAttribution attribution_;
    std::uint64_t index_ = no_task;  ///< in tasks_, once a command was recorded
    bool own_next_ = false;
    Scope* outer_;
  };

  /// A host task that ran on this thread from `started` to `ended`, ready
  /// (its inputs at home) since `ready`.
  void host_task(TraceAttribution attribution, std::chrono::steady_clock::time_point ready,
                 std::chrono::steady_clock::time_point started, std::chrono::steady_clock::time_point ended);
  /// An async task's operation, in flight from `started` to `ended` (now: it
  /// is recorded as it completes). Operations in flight at once go on tracks
  /// of their own ("async 0", "async 1", ...), since slices on one track may
  /// not overlap.
  void async_task(TraceAttribution attribution, std::chrono::steady_clock::time_point started,
                  std::chrono::steady_clock::time_point ended);
  /// Marks the next command this thread submits as its scope's task's own
  /// (not one it needed); nothing outside a scope.
  static void next_command_is_the_tasks_own();
  /// A compile (as compile() records it) for the task of this thread's
  /// scope; nothing outside one.
  void compile_for_current_task(const std::string& kernel, const std::string& device,
                                std::chrono::steady_clock::time_point started,
                                std::chrono::steady_clock::time_point ended);
  /// Preparing `kernel` for `device` before its first launch there (task
  /// `attribution`'s): a compile, or a read from the compile cache.
  void compile(TraceAttribution attribution, const std::string& kernel, const std::string& device,
               std::chrono::steady_clock::time_point started, std::chrono::steady_clock::time_point ended);

  /// Everything recorded so far, on the host's clock; waits for the
  /// commands still running. Commands that failed are left out.
  Trace trace();
  /// Reads the times of the commands completed so far and lets go of their
  /// events: best when the devices are idle (after the executor's wait), as
  /// the backend's threads then take none of the locks these reads take.
  void harvest();

 private:
  class LaneObserver;
  /// One device command, compact: recording must cost little per command.
  struct Command {
    std::uint32_t device;
    std::uint32_t lane;  ///< index into the device's lanes
    SubmittedCommand::Type type;
    bool own = false;    ///< its task's own command, not one it needed
    bool timed = false;  ///< `timing` read
    std::uint64_t task = no_task;  ///< index into tasks_
    std::uint64_t enqueued_ns;
    std::uint64_t bytes;
    std::string_view kernel;             ///< a launch's entry point (kept)
    std::optional<LaunchRange> range;    ///< a launch's
    std::shared_ptr<Event> event;        ///< until its timing is read
    EventTiming timing;
  };
  struct HostTask {
    std::uint64_t task;  ///< index into tasks_
    std::uint32_t lane;  ///< index into host_lanes_
    std::uint64_t ready_ns, started_ns, ended_ns;
    TraceKind kind = TraceKind::host;  ///< or async, or compile
    std::string_view name;             ///< a compile's (kept); else the task's label
  };

  std::uint64_t since_start(std::chrono::steady_clock::time_point time) const;
  void submitted(std::size_t device, std::uint32_t lane, const SubmittedCommand& command);
  std::uint64_t task_index(Scope& scope);  ///< under mutex_
  /// Reads the times of the commands completed so far, in order, and lets go
  /// of their events (under mutex_): a backend's events kept by the
  /// thousand cost it more than reading them.
  void harvest_completed();
  static void read_timing(Command& command);  ///< then drops its event
  std::uint32_t host_lane();               ///< this thread's, under mutex_
  TraceSlice slice_of(const Command& command, std::int64_t offset) const;
  TraceSlice slice_of(const HostTask& host) const;

  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
  RecordArena arena_;  ///< what keep() and ids() hand out
  std::string_view last_kernel_;  ///< the kernel name kept last: launches repeat it
  std::vector<TraceDevice> devices_;
  std::vector<std::unique_ptr<LaneObserver>> observers_;
  std::mutex reading_;  ///< one trace() at a time: it times commands outside mutex_
  std::mutex mutex_;
  ChunkedLog<TraceAttribution> tasks_;  ///< appended while trace() reads those before
  ChunkedLog<Command> commands_;
  std::size_t harvested_ = 0;  ///< commands_ before it have no event left
  std::size_t next_harvest_ = 0;  ///< no harvest on a command before commands_ reach it
  bool reading_now_ = false;   ///< trace() reads times outside mutex_: no harvest meanwhile
  ChunkedLog<HostTask> host_tasks_;
  std::map<std::thread::id, std::uint32_t> host_lane_of_;
  std::vector<std::string> host_lanes_;
  /// Per async track: its lane (in host_lanes_) and when its last operation ended.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> async_tracks_;
  std::optional<std::uint32_t> compile_lane_;
};

}  // namespace alloy::detail
