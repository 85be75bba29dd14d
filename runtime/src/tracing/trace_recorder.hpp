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
#include <variant>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/trace.hpp"
#include "devices/lanes.hpp"
#include "graph/graph_data.hpp"
#include "record_arena.hpp"
#include "support/chunked_log.hpp"
#include "trace_clock.hpp"

namespace alloy::detail {

/// Which task a record belongs to: one word, since a trace keeps one per
/// task. What its graph says of it (name, kind, edges within the graph,
/// declared work) the recorder keeps once per graph snapshot, and what its
/// run says (number, submission, edges to earlier work) once per run
/// (TraceRecorder::run_submitted, follows_earlier); a label is put together
/// only when the trace is read. Its id is its run's first plus its index in
/// the graph.
struct TraceAttribution {
  static constexpr std::uint32_t no_run = ~std::uint32_t{0};
  std::uint32_t run = no_run;  ///< run_submitted()'s index for its run; no_run: no task's
  std::uint32_t in_graph = 0;  ///< its index in its graph
};

/// A task of a run that follows a task of an earlier submission.
struct EarlierEdge {
  std::uint32_t in_graph;  ///< the later task, by its index in its graph
  std::uint64_t before;    ///< the earlier task's id
};

/// Which slice of its task's launch a command is (docs/sharing.md): `index`
/// from 1 of `count`; 0 of 0 for a launch that runs whole.
struct SliceOfLaunch {
  std::size_t index = 0;
  std::size_t count = 0;
};

/// What the scheduler decided for a device task, learnt as it starts.
struct TraceDecisions {
  const char* policy = "";  ///< SchedulingPolicy's name, or "pinned"
  std::optional<double> predicted_seconds;
  std::string_view configuration;       ///< a tunable kernel's defines (the recorder keeps a copy)
  const char* profile_match = nullptr;  ///< ProfileMatch's name; nullptr: "fixed"
  std::uint32_t others_in_flight = 0;   ///< other jobs' commands on the device as it was handed in

  /// Names compared by address: each is a literal, and a miss only keeps a
  /// copy more.
  friend bool operator==(const TraceDecisions&, const TraceDecisions&) = default;
};

class TraceRecorder {
 public:
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
  /// Run `run`'s edges to tasks of earlier submissions that were still
  /// live, ordered by the later task: told once, after run_submitted.
  void follows_earlier(std::uint32_t run, std::span<const EarlierEdge> edges);

  /// While it lives, commands this thread submits belong to the task; the
  /// one submitted after next_command_is_the_tasks_own() is the task's own.
  class Scope {
   public:
    Scope(TraceRecorder* recorder, TraceAttribution attribution);  ///< nullptr: records nothing
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    /// The scheduler's decisions, learnt after the scope opened: they are
    /// recorded with the task's own command, so before it is submitted.
    /// Their configuration need only live as long as the scope.
    TraceDecisions& decisions() { return decisions_; }

   private:
    friend class TraceRecorder;
    TraceRecorder* recorder_;
    TraceAttribution task_;
    TraceDecisions decisions_;
    bool own_next_ = false;
    SliceOfLaunch own_slice_;
    Scope* outer_;
  };

  /// The time on the clock host tasks are recorded by: cheaper to read
  /// than steady_clock on most machines (TraceClock).
  TraceClock::Ticks now() const { return clock_.now(); }
  /// A host task that ran on this thread from `started` to `ended` (now()).
  void host_task(TraceAttribution attribution, TraceClock::Ticks started, TraceClock::Ticks ended);
  /// An async task's operation, in flight from `started` to `ended` (now():
  /// it is recorded as it completes). Operations in flight at once go on
  /// tracks of their own ("async 0", "async 1", ...), since slices on one
  /// track may not overlap.
  void async_task(TraceAttribution attribution, TraceClock::Ticks started, TraceClock::Ticks ended);
  /// A background executor held `task` back from `device` from `started` to
  /// `ended` under a bound of `bound_commands` commands and `bound_ns` of
  /// predicted work in flight (docs/sharing.md); recorded on the device's
  /// "held back" lane, added to it at the first.
  void held_back(std::size_t device, TraceAttribution task, std::chrono::steady_clock::time_point started,
                 std::chrono::steady_clock::time_point ended, std::uint32_t bound_commands, std::uint64_t bound_ns);
  /// Marks the next command this thread submits as its scope's task's own
  /// (not one it needed), `slice` of its launch where it runs in slices;
  /// nothing outside a scope.
  static void next_command_is_the_tasks_own(SliceOfLaunch slice = {});
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
    std::span<const EarlierEdge> earlier;  ///< kept, by the later task
    std::uint64_t first;
    std::uint64_t submitted_ns;
    std::uint32_t number;
    /// A one-task call's task: its graph is never replayed, so its facts
    /// are kept here rather than once more in the arena.
    GraphTask only;
  };
  /// What a command is and whose, apart from its size and times: kept once
  /// and shared by the commands that repeat it, as a replayed graph's do.
  struct CommandShape {
    std::uint32_t device;
    std::uint32_t lane;  ///< index into the device's lanes
    SubmittedCommand::Type type;
    std::string_view kernel;           ///< a launch's entry point (kept)
    std::optional<LaunchRange> range;  ///< a launch's
    /// Its task's decisions (kept) when it is the task's own command, not
    /// one the task needed; else nullptr.
    const TraceDecisions* decided;
    std::uint32_t slice_index = 0;  ///< SliceOfLaunch's, of the task's own command
    std::uint32_t slice_count = 0;
  };
  /// One device command, in 64 bytes: a trace keeps every one, and fresh
  /// record memory is much of what recording costs per command.
  struct Command {
    const CommandShape* shape;  ///< kept
    TraceAttribution task;
    std::uint64_t enqueued_ns;
    std::uint64_t bytes;
    /// Its event until its times are read, then its times; nothing when it failed.
    std::variant<std::shared_ptr<Event>, EventTiming, std::monostate> state;
  };
  /// A host task or async operation, in 32 bytes.
  struct HostTask {
    TraceAttribution task;
    TraceClock::Ticks started, ended;
    std::uint32_t lane;  ///< index into host_lanes_
    TraceKind kind;      ///< host or async
  };
  struct HeldBack {
    TraceAttribution task;
    std::uint64_t started_ns, ended_ns;
    std::uint32_t device;
    std::uint32_t bound_commands;
    std::uint64_t bound_ns;
  };
  struct Compile {
    std::uint64_t started_ns, ended_ns;
    std::uint64_t run_submitted_ns;  ///< its task's run's
    std::string_view name;  ///< "compile 'k' for device (for task ...)" (kept)
  };

  std::uint64_t since_start(std::chrono::steady_clock::time_point time) const;
  /// Records `command`; `last_shape` is its lane's last (LaneObserver's).
  void submitted(std::uint32_t device, std::uint32_t lane, const SubmittedCommand& command,
                 const CommandShape*& last_shape);
  /// A copy of `text` that lives as long as the recorder.
  std::string_view keep(std::string_view text);
  /// Room for `count` task ids that lives as long as the recorder.
  std::span<std::uint64_t> ids(std::size_t count);
  /// A copy of `value` that lives as long as the recorder.
  template <class T>
  T* kept_copy(const T& value);
  /// `shape`, or `last` when it is the same: a lane's commands repeat
  /// (under mutex_).
  const CommandShape* keep_repeated(const CommandShape& shape, const CommandShape*& last);
  /// `decided`, kept, or the last decisions kept when they are the same: a
  /// replay decides as the run before it did (under mutex_).
  const TraceDecisions* keep_repeated(const TraceDecisions& decided);
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
  TraceSlice slice_of(const HeldBack& held) const;

  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
  TraceClock clock_;  ///< host tasks' (under mutex_, but for now())
  RecordArena arena_;  ///< what keep(), ids() and kept_copy() hand out
  std::string_view last_kernel_;     ///< the kernel name kept last: launches repeat it
  std::string_view last_task_name_;  ///< the task name kept last: one-task calls repeat it
  std::string_view last_configuration_;     ///< the configuration kept last
  const TraceDecisions* last_decisions_ = nullptr;  ///< the decisions kept last
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
  ChunkedLog<Command> commands_;
  std::size_t harvested_ = 0;  ///< commands_ before it have no event left
  std::size_t next_harvest_ = 0;  ///< no harvest on a command before commands_ reach it
  bool reading_now_ = false;   ///< trace() reads times outside mutex_: no harvest meanwhile
  ChunkedLog<HostTask> host_tasks_;
  ChunkedLog<Compile> compiles_;
  ChunkedLog<HeldBack> held_back_;
  std::map<std::thread::id, std::uint32_t> host_lane_of_;
  std::vector<std::string> host_lanes_;
  /// Per async track: its lane (in host_lanes_) and when its last operation ended.
  std::vector<std::pair<std::uint32_t, TraceClock::Ticks>> async_tracks_;
  std::optional<std::uint32_t> compile_lane_;
};

}  // namespace alloy::detail
