// Runs task graphs on devices: places copies, feeds queues, reports failures.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloy/graph.hpp"
#include "alloy/performance_model.hpp"
#include "alloy/sharing.hpp"
#include "alloy/run.hpp"
#include "alloy/runtime.hpp"
#include "alloy/trace.hpp"

namespace alloy {
namespace detail {
class ExecutorState;
}

struct ExecutorOptions {
  std::vector<Device*> devices;  ///< empty: every device of the runtime
  /// For tasks whose options and graph name none.
  SchedulingPolicy policy = SchedulingPolicy::round_robin;
  unsigned compute_lanes = 1;    ///< in-order queues for kernels, per device
  /// How this executor's kernels rank against other executors' on the same
  /// device (alloy/sharing.hpp, docs/sharing.md): its lanes are
  /// queues of that priority where the device ranks queues
  /// (Device::ranks_queues). Unset: ALLOY_PRIORITY_CLASS if set, else normal.
  std::optional<PriorityClass> priority_class;
  /// A background executor's kernels predicted to run two slice times or
  /// longer run as slices of about this long, so that other jobs' critical
  /// work starts between them (docs/sharing.md, docs/kernels.md "Slices").
  /// Unset: ALLOY_SLICE_MS if set, else 100 us.
  std::optional<std::chrono::microseconds> slice_time;
  /// Placement depends only on the submitted tasks and the performance model
  /// as it was when the executor was made, never on timings or completions
  /// seen while running: the same program places the same way. For tests.
  bool deterministic = false;
  /// Device memory the executor's buffer replicas may take per device, in
  /// bytes; 0 takes ALLOY_DEVICE_MEMORY_LIMIT (e.g. "64M") if set, else only
  /// the device's own memory limits. Beyond it, least recently used replicas
  /// are written back and freed.
  std::size_t device_memory_limit = 0;
  /// This executor's share of each device's memory (a fraction of it, or
  /// bytes), told to the other jobs on the device (Executor::jobs_on):
  /// beyond it, its own least recently used replicas are written back and
  /// freed, as beyond device_memory_limit; the smaller of the two holds.
  std::optional<MemoryShare> memory_share;
  /// Host tasks that may run at once; 0: the cores, but at least 4. A host
  /// task blocked in synchronize or wait (of any executor) does not count,
  /// so what it waits for can still run.
  unsigned host_threads = 0;
  /// The most host threads the executor holds, blocked ones included: a
  /// host task that would block in synchronize or wait while
  /// `host_thread_ceiling - host_threads` others already are fails with an
  /// error that says so. 0: 256 more than host_threads. Threads idle for a
  /// few seconds exit.
  unsigned host_thread_ceiling = 0;
  /// Captures the executor's first launch of each tunable kernel (by
  /// TunableKernel::name or entry point) matching this glob ("user.*", "a,b")
  /// and problem size to
  /// a file for `autotune --capture` (alloy/capture.hpp); empty takes
  /// ALLOY_CAPTURE, if set. The files go to `capture_directory`, else
  /// ALLOY_CAPTURE_DIR, else the current directory; a launch's file is
  /// there once its run is done (Run::wait, Executor::wait).
  std::string capture;
  std::filesystem::path capture_directory;
  /// Self-measurement (docs/tracing.md): every device command is timed and
  /// recorded with its task, lane and placement, every host task with its
  /// thread, for Executor::trace(). Costs a timestamp per command and memory
  /// per command until the executor goes. On also when `trace_file` or
  /// `report` ask for it, or ALLOY_TRACE or ALLOY_REPORT=1 are set.
  bool trace = false;
  /// Written when the executor is destroyed: the trace as Chrome trace event
  /// JSON (Perfetto, chrome://tracing, alloy-report), and beside it the
  /// timeline as FILE.svg. Empty takes ALLOY_TRACE; a second executor of the
  /// process given it by ALLOY_TRACE writes NAME-2.json, and so on. Written
  /// by alloy's trace library (liballoy_trace), which the runtime opens then.
  std::filesystem::path trace_file;
  /// Prints the utilization report (alloy/utilization_report.hpp, in
  /// alloy::trace) to stderr when the executor is destroyed; ALLOY_REPORT=1
  /// does too.
  bool report = false;
};

/// How Executor::run submits a graph.
struct RunOptions {
  /// Places the graph's tasks that name no policy; else the executor's.
  std::optional<SchedulingPolicy> policy;
  /// Earlier tasks (ids from Run::task) the graph's entry tasks run after,
  /// besides what their accesses imply.
  std::vector<TaskId> after;
  /// Every device command of the run records device timestamps, for
  /// Run::command_times(); costs an event (CUDA, HIP) per command.
  bool timed = false;
};

/// Runs tasks on devices with data-flow ordering: each task starts once the
/// tasks it depends on (Graph's inferred and explicit edges) have; device
/// tasks wait for each other through device events, not the host. Buffers'
/// device replicas are created and filled as tasks need them, directly
/// between devices where the backend allows, else through host memory.
///
///   alloy::Executor executor(runtime);
///   alloy::Run run = executor.run(graph);  // returns at once
///   executor.synchronize(y);               // y.host() is now current
///   run.wait();                            // that graph done; throws its first failure
///   executor.wait();                       // everything done; throws the first failure
///
/// Tasks may also be submitted one by one (kernel, copy, fill, host,
/// read_file): they behave as if run in submission order. Every submission returns a Run;
/// task ids (Run::task) are unique for the executor's life. Thread-safe; a
/// buffer must be used by one executor at a time. Must not outlive its
/// Runtime.
///
/// Errors: submissions throw InvalidArgument for what can be told at once
/// (an access outside its buffer, an `after` id not given out yet).
/// Everything a task meets while running (a compile error, a refused
/// launch, a device index the executor does not have, an exception from a
/// host function, device memory that cannot fit) is that task's failure:
/// its dependents do not run, Run::wait() or wait() throws it, and the
/// executor stays usable.
///
/// Lifetimes: a graph may change or go once run() returned (the run keeps
/// what it needs); buffers are kept by the tasks using them. A KernelArg
/// scalar is copied; a kernel argument that is a buffer must be passed as
/// an Access (read/write/read_write), never as a raw DeviceBuffer.
class Executor {
 public:
  /// InvalidArgument when neither `options.devices` nor the runtime has a
  /// device; InvalidArgument for a malformed ALLOY_DEVICE_MEMORY_LIMIT.
  explicit Executor(Runtime& runtime, ExecutorOptions options = {});
  /// Waits for all work; failures are logged, not thrown.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// Submits every task of `graph`, ordered after everything submitted
  /// before (as their accesses imply) and after `options.after`. Edges
  /// within the graph were inferred when it was built; only its first
  /// accesses are linked to earlier work here. InvalidArgument for an
  /// `after` id not given out yet.
  Run run(const Graph& graph, RunOptions options = {});
  /// The same, placing the graph's tasks that name no policy by `policy`.
  Run run(const Graph& graph, std::optional<SchedulingPolicy> policy) {
    return run(graph, RunOptions{policy, {}});
  }

  /// One-task calls: as Graph's (which throw what these throw), submitted
  /// at once; TaskOptions::after names ids from earlier Runs.
  Run kernel(const ProgramSource& source, std::string kernel_name, LaunchRange range,
             std::vector<TaskArg> args, TaskOptions options = {});
  Run kernel(const TunableKernel& kernel, Extent problem, std::vector<TaskArg> args,
             TaskOptions options = {});
  Run copy(BufferSlice from, BufferSlice to, TaskOptions options = {});
  template <class T>
  Run fill(BufferSlice slice, T value, TaskOptions options = {});
  Run host(std::vector<Access> accesses, std::function<void()> function, TaskOptions options = {});
  Run read_file(std::shared_ptr<const InputFile> file, std::size_t file_offset, BufferSlice into,
                TaskOptions options = {});
  Run async(std::vector<Access> accesses, AsyncStart start, TaskOptions options = {});

  /// Blocks until the host copy of the slice reflects every task submitted
  /// so far that writes it; other work goes on. Needs no host worker. From a
  /// host task of this executor, Error if the slice waits for that task.
  /// Error naming the failed task when one the slice depends on failed.
  void synchronize(const BufferSlice& slice);
  template <class T>
  void synchronize(const Buffer<T>& buffer) { synchronize(buffer.whole()); }

  /// Blocks until all submitted work is done, then reports every failure
  /// not reported before (by an earlier wait() or a Run's): throws the first
  /// (an Error naming the task and how many more there were) and logs the
  /// others as warnings. The executor stays usable either way. When several
  /// threads wait at once, each failure goes to one of them. Error at once
  /// when called from one of this executor's host tasks, which it would
  /// wait for.
  void wait();

  /// Waits as wait() does (throwing its failures), then gives everything
  /// recorded since the executor was made: every command on each device
  /// lane and every host task, on the host's clock (docs/tracing.md).
  /// alloy::trace's analyze(trace()) is the report ALLOY_REPORT=1 prints. Error unless the
  /// executor traces (ExecutorOptions::trace).
  Trace trace();

  /// How this executor runs `kernel` for `problem` on its device `device`
  /// (index into devices()): the configuration the device's tuning profile
  /// chose, checked and built as Runtime::tuned does, with its profile level,
  /// file and time. The one record the executor's own tasks of that kernel
  /// and problem read there: resolved once, compiling on first use.
  /// InvalidArgument past devices(); what Runtime::tuned throws.
  TunedKernel tuned(std::size_t device, const TunableKernel& kernel, const Extent& problem);

  const std::vector<Device*>& devices() const;
  Runtime& runtime() const;
  /// The options' class, else ALLOY_PRIORITY_CLASS's, else normal.
  PriorityClass priority_class() const;
  /// The jobs (executors of this process and of others) that share device
  /// `device` (an index into devices()), this one first, with their classes,
  /// pending critical work and memory against their shares; only this one
  /// where the device's coordination segment could not be opened.
  /// InvalidArgument past devices().
  std::vector<DeviceJob> jobs_on(std::size_t device) const;
  /// What earliest_finish_time predicts from; record into it to seed it
  /// (keys from Graph::kernel_key). Every kernel and transfer time measured
  /// before wait() returned is in it.
  PerformanceModel& performance_model();
  /// Device memory buffer replicas may take on device `device` (an index
  /// into devices()): ExecutorOptions::device_memory_limit where it is
  /// smaller than the device's memory.
  std::size_t device_memory(std::size_t device) const;
  /// Tasks run per device since the executor was made, in devices() order.
  std::vector<std::size_t> tasks_per_device() const;

 private:
  /// Submits the single task of `one`, after the tasks `after` names;
  /// `marker` for a host task that only signals its caller (synchronize's).
  Run submit_only_task(Graph one, std::vector<TaskId> after, bool marker = false);

  std::unique_ptr<detail::ExecutorState> state_;
};

template <class T>
Run Executor::fill(BufferSlice slice, T value, TaskOptions options) {
  std::vector<TaskId> after = std::exchange(options.after, {});
  Graph one;
  one.fill(std::move(slice), value, std::move(options));
  return submit_only_task(std::move(one), std::move(after));
}

}  // namespace alloy
