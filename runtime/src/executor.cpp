// The data-flow executor: submission, ready order, placement, completion.
#include "alloy/executor.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "coherence.hpp"
#include "completion_watcher.hpp"
#include "dependency_tracker.hpp"
#include "host_pool.hpp"
#include "scheduler.hpp"

namespace alloy {
namespace {

/// Kernel times are sampled for the performance model until a key has this
/// many, then one launch in this many, so that measuring stays cheap.
constexpr std::size_t sample_every = 16;

/// Ready tasks are issued highest rank first: the explicit priority, then the
/// remaining critical path (tasks on the longest chain of dependents), then
/// submission order.
struct Rank {
  int priority = 0;
  std::uint32_t critical_path = 1;
};

struct ReadyTask {
  Rank rank;
  std::uint32_t id;

  /// std::push_heap keeps the greatest on top: "a < b" means b goes first.
  friend bool operator<(const ReadyTask& a, const ReadyTask& b) {
    if (a.rank.priority != b.rank.priority) return a.rank.priority < b.rank.priority;
    if (a.rank.critical_path != b.rank.critical_path) {
      return a.rank.critical_path < b.rank.critical_path;
    }
    return a.id > b.id;
  }
};

struct TaskState {
  Task task;
  Rank rank;
  TaskId label_id;             // its index in its graph, or as submit() returned it
  std::uint32_t graph_run = 0;  // which run() it came from; 0: submitted alone
  std::vector<std::uint32_t> dependents;
  std::size_t unreleased = 0;  // dependencies whose dependents may not start yet
  bool released = false;       // device task enqueued, or host task finished
  /// Runs on whichever thread finds it ready, not on a host worker: it does
  /// nothing that takes time (synchronize's signal, a copy of no bytes).
  bool runs_inline = false;
  std::exception_ptr error;
  bool reported = false;  // its failure was thrown or logged by wait()
  Queue* queue = nullptr;
  std::shared_ptr<Event> event;  // a device task's completion
};

std::string describe(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

/// A copy or fill of no bytes has nothing to enqueue; it only keeps its place
/// in the order.
bool moves_no_bytes(const Task& task) {
  return (task.kind == TaskKind::copy || task.kind == TaskKind::fill) &&
         task.accesses.front().slice.range.empty();
}

/// The host task this thread is running, if any: blocking calls made from
/// one must not wait for it.
struct RunningHostTask {
  const Executor::State* executor = nullptr;
  std::uint32_t id = 0;
};
thread_local RunningHostTask running_host_task;

/// The remaining critical path of each task of a graph, in tasks.
std::vector<std::uint32_t> critical_paths(const Graph& graph) {
  std::vector<std::uint32_t> longest_after(graph.size(), 0);
  std::vector<std::uint32_t> path(graph.size(), 1);
  for (std::size_t i = graph.size(); i-- > 0;) {
    path[i] = longest_after[i] + 1;
    for (TaskId before : graph.tasks()[i].dependencies) {
      longest_after[before.index] = std::max(longest_after[before.index], path[i]);
    }
  }
  return path;
}

}  // namespace

struct Executor::State {
  State(Runtime& runtime_in, ExecutorOptions options_in);

  Runtime& runtime;
  ExecutorOptions options;
  std::vector<Device*> devices;
  std::vector<detail::DeviceLanes> lanes;
  std::vector<detail::Residency> residency;
  detail::Coherence coherence{devices, lanes, residency};
  PerformanceModel model;
  std::unique_ptr<detail::Scheduler> scheduler;
  std::vector<std::size_t> task_counts;
  std::uint32_t graph_runs = 0;
  bool tracks_load = false;  // some task was placed by load: lanes count what is in flight

  std::mutex mutex;
  std::condition_variable host_idle;
  detail::DependencyTracker tracker;  // edges across every submission since the last reset
  std::deque<TaskState> states;
  std::uint64_t generation = 0;  // counts the times wait() forgot finished states
  std::vector<ReadyTask> ready;       // a heap
  std::size_t host_in_flight = 0;
  std::set<std::shared_ptr<BufferStorage>> buffers;  // replicas to bring home at the end
  // Kernels by (device, kernel key): held here because a Program hands out
  // kernels it does not keep, and looking one up in the compile cache costs
  // more than launching it.
  // A tunable kernel's range depends on the device's profile, so it is
  // kept with the kernel; other kernels use their task's range.
  struct PreparedKernel {
    std::shared_ptr<Kernel> kernel;
    std::optional<LaunchRange> range;
  };
  std::map<std::pair<std::size_t, std::uint64_t>, PreparedKernel> kernels;
  std::map<std::pair<std::size_t, std::uint64_t>, std::size_t> kernel_launches;

  detail::HostPool host_pool;
  detail::CompletionWatcher watcher;  // last: stops before what its callbacks use

  // All below run with `mutex` held.
  std::string label(std::uint32_t id) const;
  /// Appends a task; `label_id` and `graph_run` name it in errors.
  std::uint32_t append(Task task, Rank rank, TaskId label_id, std::uint32_t graph_run);
  /// True if task `id` cannot start before task `running` has finished.
  bool waits_for(std::uint32_t id, std::uint32_t running) const;
  /// The failure that made task `id` fail, "task 3 'scale' (kernel), which
  /// failed: ...": up its failed dependencies to the first that failed on
  /// its own.
  std::string failure_behind(std::uint32_t id) const;
  void make_ready(std::uint32_t id);
  void drain();
  void release(std::uint32_t id);
  void fail(std::uint32_t id, std::exception_ptr error);
  void start(std::uint32_t id);
  void start_device_task(std::uint32_t id);
  void start_host_task(std::uint32_t id);
  void measure(const Task& task, std::size_t device, const std::shared_ptr<Event>& done,
               std::vector<detail::Coherence::Transfer> transfers);
  /// On a host worker (or the completion thread), without the lock; the
  /// function travels with the work, so running it takes the lock once.
  void run_host_task(std::uint32_t id, std::function<void()> function);
  void finish_host_task(std::uint32_t id, std::exception_ptr error);  // without the lock
};

unsigned host_threads(const ExecutorOptions& options) {
  if (options.host_threads != 0) return options.host_threads;
  return std::max(4u, std::thread::hardware_concurrency());
}

Executor::State::State(Runtime& runtime_in, ExecutorOptions options_in)
    : runtime(runtime_in), options(std::move(options_in)), host_pool(host_threads(options)) {
  devices = options.devices.empty() ? runtime.devices() : options.devices;
  if (devices.empty()) {
    throw InvalidArgument("an executor needs at least one device, and the runtime has none; "
                          "run alloy-info to see why");
  }
  std::size_t limit = options.device_memory_limit;
  if (limit == 0) limit = detail::device_memory_limit_from_environment().value_or(0);
  for (Device* device : devices) {
    lanes.emplace_back(*device, std::max(1u, options.compute_lanes));
    residency.push_back({limit, 0, {}});
  }
  scheduler = std::make_unique<detail::Scheduler>(options, devices.size(), model);
  task_counts.assign(devices.size(), 0);
}

std::string Executor::State::label(std::uint32_t id) const {
  const TaskState& state = states[id];
  std::string text = state.task.label(state.label_id);
  if (state.graph_run != 0) text += " of graph run " + std::to_string(state.graph_run);
  return text;
}

std::uint32_t Executor::State::append(Task task, Rank rank, TaskId label_id, std::uint32_t graph_run) {
  const auto id = static_cast<std::uint32_t>(states.size());
  tracker.record_task(task, {id});

  TaskState& state = states.emplace_back();
  state.task = std::move(task);
  state.rank = rank;
  state.label_id = label_id;
  state.graph_run = graph_run;
  state.runs_inline = moves_no_bytes(state.task);
  if (state.task.options.priority) state.rank.priority = *state.task.options.priority;
  for (TaskId dependency : state.task.dependencies) {
    TaskState& earlier = states[dependency.index];
    if (!earlier.released) {
      ++state.unreleased;
      earlier.dependents.push_back(id);
    }
  }
  if (state.unreleased == 0) make_ready(id);
  return id;
}

bool Executor::State::waits_for(std::uint32_t id, std::uint32_t running) const {
  std::vector<std::uint32_t> pending{id};
  std::set<std::uint32_t> seen;
  while (!pending.empty()) {
    const std::uint32_t next = pending.back();
    pending.pop_back();
    if (next == running) return true;
    if (states[next].released || !seen.insert(next).second) continue;
    for (TaskId dependency : states[next].task.dependencies) pending.push_back(dependency.index);
  }
  return false;
}

void Executor::State::make_ready(std::uint32_t id) {
  ready.push_back({states[id].rank, id});
  std::push_heap(ready.begin(), ready.end());
}

void Executor::State::drain() {
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end());
    const std::uint32_t id = ready.back().id;
    ready.pop_back();
    start(id);
  }
}

void Executor::State::release(std::uint32_t id) {
  TaskState& state = states[id];
  state.released = true;
  for (std::uint32_t dependent : state.dependents) {
    if (--states[dependent].unreleased == 0) make_ready(dependent);
  }
}

void Executor::State::fail(std::uint32_t id, std::exception_ptr error) {
  TaskState& state = states[id];
  state.error = std::move(error);
  // Dropping the function breaks any promise it holds (synchronize's), and
  // synchronize throws: that reports it.
  state.task.function = nullptr;
  if (state.runs_inline && state.task.kind == TaskKind::host) state.reported = true;
  release(id);
}

std::string Executor::State::failure_behind(std::uint32_t id) const {
  for (bool moved = true; moved;) {
    moved = false;
    for (TaskId dependency : states[id].task.dependencies) {
      if (states[dependency.index].error) {
        id = dependency.index;
        moved = true;
        break;
      }
    }
  }
  return label(id) + ", which failed: " + describe(states[id].error);
}

void Executor::State::start(std::uint32_t id) {
  TaskState& state = states[id];
  for (TaskId dependency : state.task.dependencies) {
    const TaskState& earlier = states[dependency.index];
    if (earlier.error) {
      const std::string why = "it did not run: it depends on " + label(dependency.index) +
                              ", which failed";
      fail(id, std::make_exception_ptr(Error(why)));
      return;
    }
  }
  try {
    if (state.task.kind == TaskKind::host || state.runs_inline) {
      start_host_task(id);
      return;  // released when it finishes
    }
    start_device_task(id);
    release(id);
  } catch (...) {
    fail(id, std::current_exception());
  }
}

void Executor::State::start_device_task(std::uint32_t id) {
  TaskState& state = states[id];
  const Task& task = state.task;
  const SchedulingPolicy policy = scheduler->policy_for(task);
  const bool predicts = policy == SchedulingPolicy::earliest_finish_time;
  const std::size_t d = scheduler->choose(task, [&](std::size_t device) {
    detail::DeviceLoad load;
    load.in_flight = lanes[device].in_flight();
    if (predicts) {
      for (const Access& access : task.accesses) load.missing_bytes += coherence.missing_bytes(access, device);
    }
    return load;
  });
  Device& device = *devices[d];
  detail::DeviceLanes& lane = lanes[d];
  Queue& queue = task.kind == TaskKind::kernel ? lane.next_compute() : lane.copy_in();

  // Producers of the data this task uses (host tasks among them are done).
  // The task's own queue runs in order, so it need not wait for those on it.
  std::vector<std::shared_ptr<Event>> producers;
  std::vector<std::shared_ptr<Event>> waits;
  for (TaskId dependency : task.dependencies) {
    const TaskState& earlier = states[dependency.index];
    if (!earlier.event) continue;
    producers.push_back(earlier.event);
    if (earlier.queue != &queue) waits.push_back(earlier.event);
  }
  coherence.reserve(task.accesses, d, [&] { return label(id); });
  std::vector<DeviceBuffer*> memories;
  for (const Access& access : task.accesses) {
    buffers.insert(access.slice.storage);
    memories.push_back(&coherence.prepare_on_device(access, d, producers, waits));
  }
  // Taken every time, so that they do not pile up when nothing measures them.
  std::vector<detail::Coherence::Transfer> transfers = coherence.take_transfers();
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  for (const auto& event : waits) {
    if (!event->is_complete()) queue.wait_for(*event);
  }

  std::shared_ptr<Event> done;
  switch (task.kind) {
    case TaskKind::kernel: {
      PreparedKernel& kernel = kernels[{d, task.kernel_key}];
      if (!kernel.kernel && task.tunable) {
        TunedKernel tuned = runtime.tuned(device, *task.tunable, task.problem);
        kernel = {std::move(tuned.kernel), std::move(tuned.range)};
      } else if (!kernel.kernel) {
        kernel.kernel = runtime.program(device, *task.source)->kernel(task.kernel_name);
      }
      std::vector<KernelArg> args;
      args.reserve(task.args.size());
      for (const auto& arg : task.args) {
        args.push_back(std::holds_alternative<std::size_t>(arg)
                           ? KernelArg::from(*memories[std::get<std::size_t>(arg)])
                           : std::get<KernelArg>(arg));
      }
      done = queue.launch(*kernel.kernel, kernel.range ? *kernel.range : *task.range,
                          std::span<const KernelArg>(args));
      break;
    }
    case TaskKind::copy: {
      const ByteRange from = task.accesses[0].slice.range;
      const ByteRange to = task.accesses[1].slice.range;
      done = queue.copy(*memories[0], from.begin, *memories[1], to.begin, from.size());
      break;
    }
    case TaskKind::fill: {
      const ByteRange range = task.accesses[0].slice.range;
      done = queue.fill(*memories[0], range.begin, &task.pattern, task.pattern_bytes, range.size());
      break;
    }
    case TaskKind::host:
      break;
  }
  for (const Access& access : task.accesses) coherence.used_on_device(access, d, queue, done);
  state.event = done;
  state.queue = &queue;
  // Only placement by load asks what is in flight; skip the bookkeeping
  // until a task placed that way comes.
  tracks_load = tracks_load || policy != SchedulingPolicy::round_robin;
  if (tracks_load) lane.track(done);
  ++task_counts[d];
  if (predicts && !options.deterministic) measure(task, d, done, std::move(transfers));
}

void Executor::State::measure(const Task& task, std::size_t device,
                              const std::shared_ptr<Event>& done,
                              std::vector<detail::Coherence::Transfer> transfers) {
  for (auto& transfer : transfers) {
    watcher.watch({transfer.event}, [this, transfer](std::exception_ptr failed) {
      if (failed) return;
      const double seconds = static_cast<double>(transfer.event->timing().duration_ns()) * 1e-9;
      model.record_transfer(transfer.device, transfer.bytes, seconds);
    });
  }
  if (task.kind != TaskKind::kernel) return;
  const std::size_t items = detail::work_items(task);
  const std::size_t launches = kernel_launches[{device, task.kernel_key}]++;
  if (launches >= sample_every && launches % sample_every != 0 &&
      model.kernel_samples(task.kernel_key, device, items) >= PerformanceModel::min_samples) {
    return;
  }
  watcher.watch({done}, [this, key = task.kernel_key, device, items, done](std::exception_ptr failed) {
    if (failed) return;
    const double seconds = static_cast<double>(done->timing().duration_ns()) * 1e-9;
    model.record_kernel(key, device, items, seconds);
  });
}

void Executor::State::start_host_task(std::uint32_t id) {
  TaskState& state = states[id];
  std::vector<std::shared_ptr<Event>> producers;
  for (TaskId dependency : state.task.dependencies) {
    if (const auto& event = states[dependency.index].event) producers.push_back(event);
  }
  std::vector<std::shared_ptr<Event>> waits = producers;
  for (const Access& access : state.task.accesses) {
    buffers.insert(access.slice.storage);
    coherence.prepare_on_host(access, producers, waits);
  }
  for (const Access& access : state.task.accesses) {
    if (writes(access.mode)) coherence.written_on_host(access);
  }
  std::erase_if(waits, [](const auto& event) { return event->is_complete(); });
  const bool runs_inline = state.runs_inline;
  if (waits.empty() && runs_inline) {
    if (state.task.function) state.task.function();
    state.task.function = nullptr;
    release(id);
    return;
  }
  ++host_in_flight;
  std::function<void()> function = std::move(state.task.function);
  if (waits.empty()) {
    host_pool.post([this, id, function = std::move(function)]() mutable {
      run_host_task(id, std::move(function));
    });
    return;
  }
  // The completion thread waits for the device work; the feeder goes on.
  watcher.watch(std::move(waits), [this, id, runs_inline, function = std::move(function)](
                                      std::exception_ptr failed) mutable {
    if (failed) {
      function = nullptr;  // breaks the promise of a synchronize waiting on it
      finish_host_task(id, std::move(failed));
    } else if (runs_inline) {
      run_host_task(id, std::move(function));
    } else {
      host_pool.post([this, id, function = std::move(function)]() mutable {
        run_host_task(id, std::move(function));
      });
    }
  });
}

void Executor::State::run_host_task(std::uint32_t id, std::function<void()> function) {
  std::exception_ptr error;
  const RunningHostTask outer = std::exchange(running_host_task, {this, id});
  try {
    if (function) function();
  } catch (...) {
    error = std::current_exception();
  }
  running_host_task = outer;
  function = nullptr;  // releases what it holds before dependents are told
  finish_host_task(id, std::move(error));
}

void Executor::State::finish_host_task(std::uint32_t id, std::exception_ptr error) {
  detail::HostPool::Finishing finishing;  // this thread runs the next ready host task
  std::lock_guard lock(mutex);
  if (error) {
    // Moved, not copied: the task's state then holds the only reference, so
    // the exception is freed under the lock by whoever forgets the task, never
    // by this thread after wait() read it (libstdc++'s reference count is
    // invisible to ThreadSanitizer).
    fail(id, std::move(error));
  } else {
    release(id);
  }
  drain();
  // Only the last one wakes wait(): its condition.
  if (--host_in_flight == 0) host_idle.notify_all();
}

Executor::Executor(Runtime& runtime, ExecutorOptions options)
    : state_(std::make_unique<State>(runtime, std::move(options))) {}

Executor::~Executor() {
  try {
    wait();
  } catch (const std::exception& error) {
    log_warning(std::string("executor destroyed after a failure: ") + error.what());
  }
  // Buffers outlive the executor: their contents come home, and the device
  // replicas this executor made are released with its devices' queues.
  try {
    for (const auto& storage : state_->buffers) state_->coherence.bring_home(*storage);
  } catch (const std::exception& error) {
    log_warning(std::string("executor could not bring buffers back to host memory: ") +
                error.what());
  }
}

void Executor::run(const Graph& graph, std::optional<SchedulingPolicy> policy) {
  const std::vector<std::uint32_t> paths = critical_paths(graph);
  std::lock_guard lock(state_->mutex);
  const auto first = static_cast<std::uint32_t>(state_->states.size());
  const std::uint32_t graph_run = ++state_->graph_runs;
  // Every task is in before any starts, so the ready ones go in rank order.
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Task& original = graph.tasks()[i];
    Task task = original;
    // Edges are inferred again, now also to earlier submissions; only the
    // explicit ones are carried over.
    task.dependencies.clear();
    for (TaskId before : original.ordered_after) task.dependencies.push_back({first + before.index});
    if (!task.options.policy) task.options.policy = policy;
    state_->append(std::move(task), {0, paths[i]}, {static_cast<std::uint32_t>(i)}, graph_run);
  }
  state_->drain();
}

TaskId Executor::submit_only_task(const Graph& one, bool runs_inline) {
  Task task = one.tasks().front();
  task.dependencies.clear();
  task.ordered_after.clear();
  std::lock_guard lock(state_->mutex);
  const TaskId id{static_cast<std::uint32_t>(state_->states.size())};
  state_->append(std::move(task), {}, id, 0);
  state_->states[id.index].runs_inline |= runs_inline;
  state_->drain();
  return id;
}

TaskId Executor::kernel(ProgramSource source, std::string kernel_name, LaunchRange range,
                        std::vector<TaskArg> args, TaskOptions options) {
  Graph one;
  one.kernel(std::move(source), std::move(kernel_name), range, std::move(args), std::move(options));
  return submit_only_task(one);
}

TaskId Executor::kernel(const TunableKernel& kernel, Extent problem, std::vector<TaskArg> args,
                        TaskOptions options) {
  Graph one;
  one.kernel(kernel, problem, std::move(args), std::move(options));
  return submit_only_task(one);
}

TaskId Executor::copy(BufferSlice from, BufferSlice to, TaskOptions options) {
  Graph one;
  one.copy(std::move(from), std::move(to), std::move(options));
  return submit_only_task(one);
}

TaskId Executor::host(std::vector<Access> accesses, std::function<void()> function,
                      TaskOptions options) {
  Graph one;
  one.host(std::move(accesses), std::move(function), std::move(options));
  return submit_only_task(one);
}

void Executor::synchronize(const BufferSlice& slice) {
  auto reached = std::make_shared<std::promise<void>>();
  std::future<void> done = reached->get_future();
  TaskOptions options;
  options.name = "synchronize";
  // Only the task holds the promise: if the task is dropped unrun, the
  // promise breaks and get() below throws instead of waiting for ever.
  // wait() forgets finished tasks, and their indices are reused after it:
  // the generation tells whether the marker's index still names it.
  const std::uint64_t generation = [&] {
    std::lock_guard lock(state_->mutex);
    return state_->generation;
  }();
  const TaskId marker = [&] {
    Graph one;  // gone before the wait, so that it holds no copy of the promise
    one.host({read(slice)}, [reached = std::move(reached)] { reached->set_value(); }, std::move(options));
    return submit_only_task(one, true);
  }();
  if (running_host_task.executor == state_.get()) {
    std::lock_guard lock(state_->mutex);
    const std::uint32_t running = running_host_task.id;
    if (state_->waits_for(marker.index, running)) {
      throw Error("synchronize called from " + state_->label(running) +
                  " would wait for that task itself: the slice is written by it or by a task "
                  "after it; declare the slice among the task's accesses instead");
    }
  }
  detail::HostPool::Blocked blocked;  // others' host tasks may be what it waits for
  try {
    done.get();
  } catch (const std::future_error&) {
    std::lock_guard lock(state_->mutex);
    if (state_->generation == generation && marker.index < state_->states.size() &&
        state_->states[marker.index].error) {
      throw Error("synchronize: the slice depends on " + state_->failure_behind(marker.index) +
                  " (wait() reports it too)");
    }
    throw Error("synchronize: a task this slice depends on failed; wait() names it");
  }
}

void Executor::wait() {
  State& state = *state_;
  if (running_host_task.executor == &state) {
    std::lock_guard lock(state.mutex);
    throw Error("wait called from " + state.label(running_host_task.id) +
                " of the same executor would wait for that task itself; use synchronize on the "
                "slices it needs, or wait from outside the executor's tasks");
  }
  detail::HostPool::Blocked blocked;
  std::unique_lock lock(state.mutex);
  state.host_idle.wait(lock, [&] { return state.host_in_flight == 0; });
  const std::size_t count = state.states.size();
  const std::uint64_t generation = state.generation;
  // Callbacks handed to the watcher so far belong to this work: the kernel
  // and transfer times they record are the executor's to report after wait().
  const std::uint64_t watched = state.watcher.handed_in();
  std::vector<std::pair<std::uint32_t, std::shared_ptr<Event>>> device_events;
  std::map<Queue*, std::shared_ptr<Event>> last_on_queue;
  for (std::uint32_t id = 0; id < count; ++id) {
    const TaskState& task = state.states[id];
    if (!task.event) continue;
    device_events.emplace_back(id, task.event);
    last_on_queue[task.queue] = task.event;
  }
  lock.unlock();

  // Queues run in order: once each one's last command is done, so is every
  // other, and checking each task's event for failure no longer blocks.
  for (const auto& [queue, event] : last_on_queue) {
    try {
      event->wait();
    } catch (const Error&) {
      // Reported below, for the task it belongs to.
    }
  }
  std::vector<std::pair<std::uint32_t, std::exception_ptr>> device_failures;
  for (const auto& [id, event] : device_events) {
    try {
      event->wait();
    } catch (...) {
      device_failures.emplace_back(id, std::current_exception());
    }
  }
  state.watcher.wait_for_callbacks(watched);

  lock.lock();
  // A wait() on another thread has meanwhile taken stock of this work (and
  // thrown its failure, if any); it is all done.
  if (state.generation != generation) return;
  if (state.states.size() == count) {
    for (auto& lane : state.lanes) lane.all_complete();
  }
  for (auto& [id, error] : device_failures) {
    if (!state.states[id].error) state.states[id].error = error;
  }
  // Each failure is reported once: the first is thrown, the others logged.
  std::vector<std::string> failures;
  for (std::uint32_t id = 0; id < count; ++id) {
    TaskState& task = state.states[id];
    if (!task.error || task.reported) continue;
    task.reported = true;
    failures.push_back(state.label(id) + " failed: " + describe(task.error));
  }
  // Forget finished work unless more arrived meanwhile; buffers keep their
  // state, and those only this executor still holds give their memory back.
  if (state.states.size() == count && state.host_in_flight == 0) {
    state.states.clear();
    ++state.generation;
    state.tracker = detail::DependencyTracker();
    for (auto it = state.buffers.begin(); it != state.buffers.end();) {
      if (it->use_count() > 1) {
        ++it;
        continue;
      }
      try {
        state.coherence.forget(**it);
      } catch (const Error& error) {
        log_warning(std::string("executor could not free a dropped buffer's replicas: ") + error.what());
      }
      it = state.buffers.erase(it);
    }
  }
  lock.unlock();
  if (failures.empty()) return;
  for (std::size_t i = 1; i < failures.size(); ++i) log_warning("wait: " + failures[i]);
  if (failures.size() == 1) throw Error(failures.front());
  throw Error(failures.front() + " (and " + std::to_string(failures.size() - 1) +
              " more failures, each logged)");
}

const std::vector<Device*>& Executor::devices() const { return state_->devices; }

PerformanceModel& Executor::performance_model() { return state_->model; }

std::vector<std::size_t> Executor::tasks_per_device() const {
  std::lock_guard lock(state_->mutex);
  return state_->task_counts;
}

}  // namespace alloy
