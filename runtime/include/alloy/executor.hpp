// Runs task graphs on devices: places copies, feeds queues, reports failures.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "alloy/graph.hpp"
#include "alloy/performance_model.hpp"
#include "alloy/runtime.hpp"

namespace alloy {

struct ExecutorOptions {
  std::vector<Device*> devices;  ///< empty: every device of the runtime
  /// For tasks whose options and graph name none.
  SchedulingPolicy policy = SchedulingPolicy::round_robin;
  unsigned compute_lanes = 1;    ///< in-order queues for kernels, per device
  /// Placement depends only on the submitted tasks and the performance model
  /// as it was when the executor was made, never on timings or completions
  /// seen while running: the same program places the same way. For tests.
  bool deterministic = false;
  /// Device memory the executor's buffer replicas may take per device, in
  /// bytes; 0 takes ALLOY_DEVICE_MEMORY_LIMIT (e.g. "64M") if set, else only
  /// the device's own memory limits. Beyond it, least recently used replicas
  /// are written back and freed.
  std::size_t device_memory_limit = 0;
  /// Host tasks that may run at once; 0: the cores, but at least 4. A host
  /// task blocked in synchronize or wait (of any executor) does not count,
  /// so what it waits for can still run.
  unsigned host_threads = 0;
};

/// Runs tasks on devices with data-flow ordering: each task starts once the
/// tasks it depends on (Graph's inferred and explicit edges) have; device
/// tasks wait for each other through device events, not the host. Buffers'
/// device replicas are created and filled as tasks need them, directly
/// between devices where the backend allows, else through host memory.
///
///   alloy::Executor executor(runtime);
///   executor.run(graph);       // returns at once
///   executor.synchronize(y);   // y.host() is now current
///   executor.wait();           // everything done; throws the first failure
///
/// Tasks may also be submitted one by one (kernel, copy, fill, host): they
/// behave as if run in submission order. Thread-safe; a buffer must be used
/// by one executor at a time. Must not outlive its Runtime.
class Executor {
 public:
  explicit Executor(Runtime& runtime, ExecutorOptions options = {});
  /// Waits for all work; failures are logged, not thrown.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// Submits every task of `graph`, ordered after everything submitted
  /// before; `policy` places those of its tasks that name none.
  void run(const Graph& graph, std::optional<SchedulingPolicy> policy = std::nullopt);

  TaskId kernel(ProgramSource source, std::string kernel_name, LaunchRange range,
                std::vector<TaskArg> args, TaskOptions options = {});
  TaskId kernel(const TunableKernel& kernel, Extent problem, std::vector<TaskArg> args,
                TaskOptions options = {});
  TaskId copy(BufferSlice from, BufferSlice to, TaskOptions options = {});
  template <class T>
  TaskId fill(BufferSlice slice, T value, TaskOptions options = {});
  TaskId host(std::vector<Access> accesses, std::function<void()> function,
              TaskOptions options = {});

  /// Blocks until the host copy of the slice reflects every task submitted
  /// so far that writes it; other work goes on. Needs no host worker. From a
  /// host task of this executor, Error if the slice waits for that task.
  void synchronize(const BufferSlice& slice);
  template <class T>
  void synchronize(const Buffer<T>& buffer) { synchronize(buffer.whole()); }

  /// Blocks until all submitted work is done, then reports every failure
  /// not reported before: throws the first (an Error naming the task and
  /// how many more there were) and logs the others as warnings. The
  /// executor stays usable either way. When several threads wait at once,
  /// each failure goes to one of them. Error at once when called from one
  /// of this executor's host tasks, which it would wait for.
  void wait();

  const std::vector<Device*>& devices() const;
  /// What earliest_finish_time predicts from; record into it to seed it.
  PerformanceModel& performance_model();
  /// Tasks run per device since the executor was made, in devices() order.
  std::vector<std::size_t> tasks_per_device() const;

  struct State;  ///< defined in executor.cpp

 private:
  /// Submits the single task of `one`, whose edges are inferred again here;
  /// `runs_inline` for a host task that only signals (synchronize's).
  TaskId submit_only_task(const Graph& one, bool runs_inline = false);

  std::unique_ptr<State> state_;
};

template <class T>
TaskId Executor::fill(BufferSlice slice, T value, TaskOptions options) {
  Graph one;
  one.fill(std::move(slice), value, std::move(options));
  return submit_only_task(one);
}

}  // namespace alloy
