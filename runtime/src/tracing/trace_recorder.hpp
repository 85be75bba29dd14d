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
#include "graph/graph_data.hpp"
#include "record_arena.hpp"
#include "support/chunked_log.hpp"

namespace alloy::detail {

/// Which task a record belongs to, copied when it starts: a few words,
/// since a trace keeps one per task. What its graph says of it (name, kind,
/// edges within the graph, declared work) the recorder keeps once per graph
/// snapshot, and what its run says (number, submission) once per run
/// (TraceRecorder::run_submitted); a label is put together only when the
/// trace is read. Its id is its run's first plus its index in the graph.
struct TraceAttribution {
  /// The tasks of earlier submissions it follows that were still live (kept
  /// by the recorder: TraceRecorder::ids).
  std::span<const std::uint64_t> earlier;
  std::uint32_t run = 0;       ///< run_submitted()'s index for its run
  std::uint32_t in_graph = 0;  ///< its index in its graph
};

/// What the scheduler decided for a device task, learnt as it starts.
struct TraceDecisions {
  const char* policy = "";  ///< SchedulingPolicy's name, or "pinned"
  std::optional<double> predicted_seconds;
  std::string_view configuration;       ///< kept by the recorder
  const char* profile_match = nullptr;  ///< ProfileMatch's name; nullptr: "fixed"
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
  /// A submission of `graph`, whose task i has the executor-wide id
  /// `first + i`; `number` counts graph runs (0: a one-task call). Returns
  /// the run's index for TraceAttribution::run. A replay of a snapshot met
  /// last time shares that snapshot's facts.
  std::uint32_t run_submitted(const std::shared_ptr<const GraphData>& graph, std::uint64_t first,
                              std::uint32_t number, std::chrono::steady_clock::time_point submitted);
  /// A copy of `text` that lives as long as the recorder.
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
    /// Adds the scheduler's decisions, learnt after the scope opened, to
    /// the task's record, kept already or not: `edit(decisions)`.
    template <class Edit>
    void describe(Edit&& edit) {
      if (recorder_ == nullptr) return;
      if (index_ == no_task) {
        edit(decisions_);
        return;
      }
      std::lock_guard lock(recorder_->mutex_);  // trace() may be reading them
      edit(recorder_->decisions_[recorder_->tasks_[index_].decisions]);
    }

   private:
    friend class TraceRecorder;
    TraceRecorder* recorder_;
    TraceAttribution attribution_;
    TraceDecisions decisions_;
    std::uint64_t index_ = no_task;  ///< in tasks_, once a command was recorded
    bool own_next_ = false;
    Scope* outer_;
  };

  /// A host task that ran on this thread from `started` to `ended`.
  void host_task(TraceAttribution attribution, std::chrono::steady_clock::time_point started,
                 std::chrono::steady_clock::time_point ended);
  /// An async task's operation, in flight from `started` to `ended` (now: it
  /// is recorded as it completes). Operations in flight at once go on tracks
  /// of their own ("async 0", "async 1", ...), since slices on one track may
  /// not overlap.
  void async_task(TraceAttribution attribution, std::chrono::steady_clock::time_point started,
                  std::chrono::steady_clock::time_point ended);
  /// Marks the next command this thread submits as its scope's task's own
  /// (not one it needed); nothing outside a scope.
  static void next_command_is_the_tasks_own();
  /// Preparing `kernel` for `device` before its first launch there, for the
  /// task of this thread's scope: a compile, or a read from the compile
  /// cache. Nothing outside a scope.
  void compile_for_current_task(const std::string& kernel, const std::string& device,
                                std::chrono::steady_clock::time_point started,
                                std::chrono::steady_clock::time_point ended);

  /// Everything recorded so far, on the host's clock; waits for the
  /// commands still running. Commands that failed are left out.
  Trace trace();
  /// Reads the times of the commands completed so far and lets go of their
  /// events: best when the devices are idle (after the executor's wait), as
  /// the backend's threads then take none of the locks these reads take.
  void harvest();

 private:
  class LaneObserver;
  /// What a graph snapshot says of one of its tasks.
  struct GraphTask {
    std::string_view name;  ///< TaskOptions::name (kept)
    const char* kind;       ///< Task::kind_name()
    std::span<const std::uint64_t> after;  ///< its graph's tasks it follows, by index (kept)
    double flops;           ///< TaskOptions::flops
    std::uint64_t bytes;    ///< TaskOptions::bytes
  };
  struct Run {
    const GraphTask* tasks;  ///< kept, shared by the runs of one snapshot; or `only`
    std::uint64_t first;
    std::uint64_t submitted_ns;
    std::uint32_t number;
    /// A one-task call's task: its graph is never replayed, so its facts
    /// are kept here rather than once more in the arena.
    GraphTask only;
  };
  /// A device task's, once it submitted a command.
  struct TaskRecord {
    TraceAttribution attribution;
    std::uint32_t decisions;  ///< index into decisions_
  };
  /// One device command, compact: recording must cost little per command.
  struct Command {
    std::uint32_t device;
    std::uint32_t lane;  ///< index into the device's lanes
    SubmittedCommand::Type type;
    bool own = false;    ///< its task's own command, not one it needed
    bool timed = false;  ///< `timing` read
    std::uint64_t task = no_task;  ///< index into tasks_: a device task's command
    std::uint64_t enqueued_ns;
    std::uint64_t bytes;
    std::string_view kernel;             ///< a launch's entry point (kept)
    std::optional<LaunchRange> range;    ///< a launch's
    std::shared_ptr<Event> event;        ///< until its timing is read
    EventTiming timing;
  };
  /// A host task or async operation: a trace may keep millions, so the
  /// task's facts are in it, not in tasks_.
  struct HostTask {
    TraceAttribution task;
    std::uint64_t started_ns, ended_ns;
    std::uint32_t lane;  ///< index into host_lanes_
    TraceKind kind;      ///< host or async
  };
  struct Compile {
    std::uint64_t started_ns, ended_ns;
    std::uint64_t run_submitted_ns;  ///< its task's run's
    std::string_view name;  ///< "compile 'k' for device (for task ...)" (kept)
  };

  std::uint64_t since_start(std::chrono::steady_clock::time_point time) const;
  void submitted(std::size_t device, std::uint32_t lane, const SubmittedCommand& command);
  std::uint64_t task_index(Scope& scope);  ///< under mutex_
  /// Its graph's facts, kept once per snapshot (under mutex_).
  const GraphTask* graph_facts(const std::shared_ptr<const GraphData>& graph);
  GraphTask task_facts(const GraphData& graph, std::size_t task);  ///< under mutex_
  /// keep(text), or `last` when text is the same: names repeat call after
  /// call (under mutex_).
  std::string_view keep_repeated(std::string_view text, std::string_view& last);
  const GraphTask& graph_task(const TraceAttribution& task) const;
  std::uint64_t id(const TraceAttribution& task) const;
  std::string label(const TraceAttribution& task) const;
  std::vector<std::uint64_t> after(const TraceAttribution& task) const;
  /// Reads the times of the commands completed so far, in order, and lets go
  /// of their events (under mutex_): a backend's events kept by the
  /// thousand cost it more than reading them.
  void harvest_completed();
  static void read_timing(Command& command);  ///< then drops its event
  std::uint32_t host_lane();               ///< this thread's, under mutex_
  TraceSlice slice_of(const Command& command, std::int64_t offset) const;
  TraceSlice slice_of(const HostTask& host) const;
  TraceSlice slice_of(const Compile& compile) const;

  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
  RecordArena arena_;  ///< what keep() and ids() hand out
  std::string_view last_kernel_;     ///< the kernel name kept last: launches repeat it
  std::string_view last_task_name_;  ///< the task name kept last: one-task calls repeat it
  std::vector<TraceDevice> devices_;
  std::vector<std::unique_ptr<LaneObserver>> observers_;
  std::mutex reading_;  ///< one trace() at a time: it times commands outside mutex_
  std::mutex mutex_;
  /// The snapshot met last and its facts: a replayed graph is one snapshot.
  /// Held weakly, so that the recorder keeps none of the graph's functions;
  /// the control block it keeps alive cannot be another snapshot's.
  std::weak_ptr<const GraphData> last_graph_;
  const GraphTask* last_graph_facts_ = nullptr;
  ChunkedLog<Run> runs_;
  ChunkedLog<TaskRecord> tasks_;  ///< device tasks'; appended while trace() reads those before
  ChunkedLog<TraceDecisions> decisions_;
  ChunkedLog<Command> commands_;
  std::size_t harvested_ = 0;  ///< commands_ before it have no event left
  std::size_t next_harvest_ = 0;  ///< no harvest on a command before commands_ reach it
  bool reading_now_ = false;   ///< trace() reads times outside mutex_: no harvest meanwhile
  ChunkedLog<HostTask> host_tasks_;
  ChunkedLog<Compile> compiles_;
  std::map<std::thread::id, std::uint32_t> host_lane_of_;
  std::vector<std::string> host_lanes_;
  /// Per async track: its lane (in host_lanes_) and when its last operation ended.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> async_tracks_;
  std::optional<std::uint32_t> compile_lane_;
};

}  // namespace alloy::detail
