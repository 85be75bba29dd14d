// Everything an Executor keeps, and the data flow that starts its tasks
// (internal to the runtime).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "alloy/executor.hpp"
#include "completion_lane.hpp"
#include "device_planner.hpp"
#include "devices/lanes.hpp"
#include "graph/dependency_tracker.hpp"
#include "host_pool.hpp"
#include "placement.hpp"
#include "run_record.hpp"
#include "sharing/device_sharing.hpp"
#include "support/chunked_log.hpp"
#include "tracing/trace_recorder.hpp"

namespace alloy::detail {

/// Ready tasks are issued highest rank first: the explicit priority, then the
/// remaining critical path (tasks on the longest chain of dependents), then
/// submission order.
struct Rank {
  int priority = 0;
  std::uint32_t critical_path = 1;
};

struct ReadyTask {
  Rank rank;
  std::uint64_t id;

  /// std::push_heap keeps the greatest on top: "a < b" means b goes first.
  friend bool operator<(const ReadyTask& a, const ReadyTask& b) {
    if (a.rank.priority != b.rank.priority) return a.rank.priority < b.rank.priority;
    if (a.rank.critical_path != b.rank.critical_path) {
      return a.rank.critical_path < b.rank.critical_path;
    }
    return a.id > b.id;
  }
};

/// One submitted task, from submission until wait() forgets it.
struct TaskState {
  const Task* task = nullptr;  ///< in its run's graph
  RunRecord* run = nullptr;    ///< held by ExecutorState::runs while this lives
  std::uint64_t in_graph = 0;  ///< its id in its graph
  /// Tasks of earlier submissions it follows (executor-wide ids), besides
  /// those of its own graph: sorted, without repeats.
  std::vector<TaskId> earlier;
  /// Those of `earlier` the program asked for (RunOptions::after, TaskOptions::after).
  std::vector<TaskId> ordered_after;
  /// A host task's function, copied from the graph (or moved, for a
  /// one-task call): dropped unrun when the task fails, which breaks any
  /// promise it holds (synchronize's).
  std::function<void()> function;
  Rank rank;
  std::vector<std::uint64_t> dependents;
  std::size_t unreleased = 0;  ///< dependencies whose dependents may not start yet
  bool released = false;       ///< device task enqueued, or host task finished
  /// Runs on whichever thread finds it ready, not on a host worker: it does
  /// nothing that takes time (synchronize's signal, a copy of no bytes).
  bool runs_inline = false;
  /// Synchronize's: it only signals its caller, who alone gets its failure.
  bool marker = false;
  std::optional<std::size_t> device;  ///< where placement put it
  std::exception_ptr error;
  Queue* queue = nullptr;
  std::shared_ptr<Event> event;  ///< a device task's completion
};

/// Everything an Executor keeps: the scheduler (task table, ready heap,
/// runs) and the parts it drives (the device planner, placement, the host
/// pool, the completion lane). The Executor and the rest of the runtime use
/// the public calls, each of which takes the lock; the rest is the
/// scheduler's own.
class ExecutorState {
 public:
  ExecutorState(Runtime& runtime, ExecutorOptions options);

  /// Submits a run of `graph` (a one-task call's task, if `one_task`): ids,
  /// edges to earlier work (and to `options.after`, for its entry tasks),
  /// ready tasks started.
  struct OneTask {
    std::function<void()> function;  ///< its host function, moved out of the graph
    bool marker = false;             ///< synchronize's, which runs inline
  };
  std::shared_ptr<RunRecord> submit(std::shared_ptr<const GraphData> graph, const RunOptions& run_options,
                                    std::optional<OneTask> one_task = std::nullopt);
  /// Executor::wait: every task done, failures reported (thrown), finished
  /// work forgotten.
  void wait();
  /// The executor goes (after wait()): Run handles stop asking it, buffers
  /// come home, the trace and report are written.
  void close();
  /// Error if this executor's task `running` would wait for itself in
  /// synchronize (whose marker is task `marker`), or in Run::wait on `run`.
  void check_not_waited_for(std::uint64_t marker, std::uint64_t running) const;
  void check_not_waited_for(const RunRecord& run, std::uint64_t running) const;
  /// synchronize's marker was dropped unrun: the error naming why.
  [[noreturn]] void throw_synchronize_failure(std::uint64_t marker) const;
  /// True if task `id`, while live, cannot start before task `running` has finished.
  bool waits_for_live(std::uint64_t id, std::uint64_t running) const;
  /// Task `id`'s label, or its number once forgotten.
  std::string label_of(std::uint64_t id) const;
  /// Hands the run's completion to the completion lane soon: someone waits for it.
  void watch_soon(RunRecord& run);
  /// A host thread's write into a replica on `device` ended (file_read_tasks.cpp).
  void host_write_ended(BufferStorage& storage, std::size_t device);

  const ResolvedKernel& resolve(const KernelWork& kernel, std::size_t device);
  PerformanceModel& performance_model() { return placement.model(); }
  std::size_t device_memory(std::size_t device) const { return planner.capacity(device); }
  std::vector<std::size_t> tasks_per_device() const;
  std::vector<DeviceJob> jobs_on(std::size_t device) const;
  bool traces() const { return recorder != nullptr; }
  /// What the recorder has so far (executor_tracing.cpp); only when it traces.
  Trace trace();

  Runtime& runtime;
  const ExecutorOptions options;
  const std::vector<Device*> devices;

 private:
  /// Before the lanes: their queues tell it of every command while they live.
  std::unique_ptr<TraceRecorder> recorder;  ///< when the executor traces
  std::vector<DeviceLanes> lanes;
  DevicePlanner planner;  ///< after the lanes: its parts use them
  std::vector<std::size_t> task_counts;
  DeviceSharing sharing;  ///< the executor's part in each device's coordination segment
  bool tracks_load = false;  ///< some task was placed by load: lanes count what is in flight

  mutable std::mutex mutex;
  std::condition_variable settled;  ///< `handed_off` fell to 0
  DependencyTracker tracker;  ///< edges across submissions since wait() last forgot
  /// Tasks with ids from `first_live` on; earlier ones are finished and
  /// forgotten, their failures reported.
  ChunkedLog<TaskState> tasks;
  std::uint64_t first_live = 0;
  std::deque<std::shared_ptr<RunRecord>> runs;  ///< those with live tasks
  std::shared_ptr<RunRecord::ExecutorLink> link = std::make_shared<RunRecord::ExecutorLink>();
  /// One-task runs whose commands are enqueued but not watched yet: they are
  /// watched in batches, so that a task submitted alone costs no wake-up of
  /// the completion lane of its own.
  std::vector<std::shared_ptr<RunRecord>> unwatched;
  static constexpr std::size_t unwatched_batch = 64;
  std::uint32_t graph_runs = 0;
  std::vector<ReadyTask> ready;  ///< a heap
  /// Tasks another thread will finish or start again: host tasks running or
  /// waiting for their inputs, device tasks waiting for device memory.
  std::size_t handed_off = 0;
  std::vector<std::vector<std::uint64_t>> waiting_for_memory;  ///< per device
  /// A background executor's task held back while critical work may come
  /// (DeviceSharing::may_start): since when, and by what bound, for the trace.
  struct HeldBack {
    std::uint64_t id;
    /// On steady_clock, as commands' enqueue times are: a hold ends before
    /// its task's commands are enqueued on the same clock. Holds are few.
    std::chrono::steady_clock::time_point since;
    BackgroundBound bound;
  };
  /// Per device: the tasks held back there, and whether any was since the
  /// executor's last command there ended.
  std::vector<std::vector<HeldBack>> yielded;
  std::vector<char> held_back_since_last_end;  ///< not vector<bool>: std::exchange takes an element

  Placement placement;  // records into its model from the completion lane's callbacks
  HostPool host_pool;
  CompletionLane completions;  // last: stops before what its callbacks use

  // All below run with `mutex` held.
  /// What a traced task's commands are recorded with (under the lock).
  TraceAttribution attribution(std::uint64_t id) const;
  TaskState& task(std::uint64_t id) { return tasks[id - first_live]; }
  const TaskState& task(std::uint64_t id) const { return tasks[id - first_live]; }
  bool live(std::uint64_t id) const { return id >= first_live && id < first_live + tasks.size(); }
  std::uint64_t next_id() const { return first_live + tasks.size(); }
  std::string label(std::uint64_t id) const;
  /// Calls `f(id)` for every task `state` runs after that is still live.
  template <class F>
  void for_each_dependency(const TaskState& state, F&& f) const;
  /// Those of them outside its own graph.
  template <class F>
  void for_each_earlier_dependency(const TaskState& state, F&& f) const;

  std::shared_ptr<RunRecord> add_run(std::shared_ptr<const GraphData> graph, const RunOptions& options,
                                     std::optional<OneTask> one_task);
  void add_task_states(RunRecord& run, const std::vector<TaskId>& after,
                       std::optional<OneTask> one_task);
  /// Counts each task's unreleased dependencies, in its graph and before
  /// it, and tells the recorder (if any) those before it.
  void link_to_earlier_work(RunRecord& run);
  /// True if task `id` cannot start before task `running` has finished.
  bool waits_for(std::uint64_t id, std::uint64_t running) const;
  /// True if task `failed`'s failure keeps `state` from running: `state`
  /// touches bytes `failed` writes (or was to write), or the program ordered
  /// `state` after it. A task that only read what `state` overwrites, and
  /// synchronize's marker, hold nothing back.
  bool inherits_failure(const TaskState& state, std::uint64_t failed) const;
  /// The first dependency of `state` whose failure it inherits.
  std::optional<std::uint64_t> inherited_failure(const TaskState& state) const;
  /// "task 3 'scale' (kernel), which failed: ...": up the failed
  /// dependencies of task `id` to the first that failed on its own.
  std::string failure_behind(std::uint64_t id) const;
  void make_ready(std::uint64_t id);
  void drain();
  void release(std::uint64_t id);
  void fail(std::uint64_t id, std::exception_ptr error);
  void start(std::uint64_t id);
  /// Device tasks (device_tasks.cpp); false when it waits for memory.
  bool start_device_task(std::uint64_t id);
  /// What planning decided, in a traced task's facts.
  /// `predicted`: the model's estimate for the task on its device.
  void describe_plan(TraceRecorder::Scope& traced, const DevicePlan& plan, SchedulingPolicy policy,
                     std::optional<double> predicted) const;
  /// How a kernel task's launch runs while the executor slices on its device.
  KernelSlicing slicing_of(const DevicePlan& plan, std::optional<double> predicted) const;
  /// Task `id`'s commands are on `queue`, `done` its last.
  void released_on_device(std::uint64_t id, std::size_t device, Queue& queue, SchedulingPolicy policy,
                          std::shared_ptr<Event> done);
  /// Placed on `device`, task `id` starts there once evicted memory is freed.
  void wait_for_memory(std::uint64_t id, std::size_t device);
  /// A task fitted on `device`: if it had reserved memory there, the others
  /// waiting there try again.
  void fitted_after_waiting(std::size_t device);
  std::size_t place(std::uint64_t id, SchedulingPolicy policy);
  /// The events a task's commands wait for, on `queue`.
  Producers producers_of(const TaskState& state, const Queue& queue) const;
  /// Every task `state` depends on has completed: a host task is done when
  /// its dependents start, a device task when its event has.
  bool dependencies_complete(const TaskState& state) const;
  /// Hands evictions started meanwhile to the completion lane.
  void retire_evicted();
  /// Lets the tasks waiting for memory on `device` try again: memory was
  /// freed there, or a replica eviction had to pass over may go now. Under
  /// the lock.
  void retry_waiting_for_memory(std::size_t device);
  /// Placed on `device`, task `id` of a background executor starts there
  /// once one of its commands there completes.
  void yield_to_critical_work(std::uint64_t id, std::size_t device);
  /// Tells the device's other jobs of the work `done` ends, and of its end;
  /// the tasks held back there may start then.
  void count_on_device(std::size_t device, DeviceSharing::InFlight work, const std::shared_ptr<Event>& done);
  /// Lets the tasks held back on `device` try again, and traces how long each was.
  void retry_held_back(std::size_t device);
  /// Makes the tasks of `parked` ready again and starts what it can.
  void retry_parked(std::vector<std::uint64_t>& parked);
  /// File reads (file_read_tasks.cpp): straight into the replica on a device
  /// that opens the file directly, else as a host task into host memory.
  /// Released when the read is done.
  void start_file_read(std::uint64_t id);
  /// Host tasks (host_tasks.cpp), and async ones, which start as host tasks do.
  void start_host_task(std::uint64_t id);
  /// Hands the task's function to a host worker, or its operation to the completion lane.
  /// With the lock or without; `async`: the task's, if it is an async task.
  void post_host_task(std::uint64_t id, std::function<void()> function, std::string range_name,
                      const AsyncWork* async);
  /// On a host worker (or the completion lane), without the lock; the
  /// function travels with the work, so running it takes the lock once.
  /// `range_name`: the task's name where a profiler takes ranges, else empty.
  void run_host_task(std::uint64_t id, std::function<void()> function, const std::string& range_name);
  /// When a host task's function ran, for the trace (on the recorder's clock).
  struct HostTaskTimes {
    TraceClock::Ticks started;
    TraceClock::Ticks ended;
  };
  /// Without the lock; `ran` is empty for a task that failed before it ran.
  void finish_host_task(std::uint64_t id, std::exception_ptr error, std::optional<HostTaskTimes> ran = std::nullopt);
  /// Once every task of `run` is released: marks it done when its device
  /// commands complete, collecting their failures (on the completion lane).
  void complete_when_commands_done(RunRecord& run);
  void watch_completion(std::vector<std::shared_ptr<RunRecord>> batch);
  /// Hands the unwatched one-task runs to the completion lane.
  void watch_unwatched();
  /// After wait(): forgets finished tasks and runs, and frees the replicas of
  /// buffers only this executor still holds.
  void forget_finished();
  /// The trace file and report ALLOY_TRACE, ALLOY_REPORT or the options ask
  /// for (executor_tracing.cpp).
  void write_trace_at_exit();

};

template <class F>
void ExecutorState::for_each_dependency(const TaskState& state, F&& f) const {
  const std::uint64_t first = state.run->first;
  for (TaskId before : state.run->graph->dependencies[state.in_graph]) f(first + before.index);
  for_each_earlier_dependency(state, f);
}

template <class F>
void ExecutorState::for_each_earlier_dependency(const TaskState& state, F&& f) const {
  for (TaskId before : state.earlier) {
    if (live(before.index)) f(before.index);
  }
}

/// Tracing (executor_tracing.cpp): the options with what ALLOY_TRACE and
/// ALLOY_REPORT ask for filled in, the recorder they ask for, and what they
/// want written when the executor goes.
ExecutorOptions with_tracing_from_environment(ExecutorOptions options);
std::unique_ptr<TraceRecorder> make_recorder(const ExecutorOptions& options, const std::vector<Device*>& devices);

/// The host task this thread is running, if any: blocking calls made from
/// one must not wait for it.
struct RunningHostTask {
  ExecutorState* executor = nullptr;
  std::uint64_t id = 0;
};
RunningHostTask& running_host_task();

/// Error if this thread runs a host task of `run`'s executor that `run`
/// waits for (Run::wait would then wait for itself).
void check_not_waited_for_by_running_host_task(const RunRecord& run);

}  // namespace alloy::detail
