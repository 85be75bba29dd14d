// The data-flow executor: submission, device placement, coherence, completion.
#include "alloy/executor.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <map>
#include <set>
#include <tuple>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "coherence.hpp"

namespace alloy {
namespace {

constexpr std::size_t no_device = static_cast<std::size_t>(-1);

struct TaskState {
  Task task;
  std::vector<std::uint32_t> dependents;
  std::size_t unreleased = 0;  // dependencies whose dependents may not start yet
  bool released = false;       // device task enqueued, or host task finished
  bool finished = false;       // host task finished
  std::exception_ptr error;
  std::size_t device = no_device;
  Queue* queue = nullptr;
  std::shared_ptr<Event> event;  // a device task's completion
  std::vector<std::shared_ptr<Event>> host_waits;  // what a host task waits for first
};

/// Host work waiting for a oneTBB worker. Workers take it from this queue
/// under a mutex instead of from their task's captures: libtbb passes tasks
/// between threads through synchronization that ThreadSanitizer cannot see
/// (Debian's libtbb is not built with it), and this way no data crosses it.
struct HostWork {
  Executor::State* state;
  std::uint32_t id;
};

class HostWorkers {
 public:
  static HostWorkers& instance() {
    static HostWorkers workers;
    return workers;
  }

  void post(HostWork work) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(work);
    }
    arena_.enqueue([] { instance().run_one(); });
  }

 private:
  void run_one();

  std::mutex mutex_;
  std::deque<HostWork> queue_;
  tbb::task_arena arena_;
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

}  // namespace

struct Executor::State {
  State(Runtime& runtime_in, ExecutorOptions options_in)
      : runtime(runtime_in), options(std::move(options_in)) {}

  Runtime& runtime;
  ExecutorOptions options;
  std::vector<Device*> devices;
  std::vector<detail::DeviceLanes> lanes;
  std::vector<std::size_t> task_counts;
  std::size_t next_device = 0;

  std::mutex mutex;
  std::condition_variable host_idle;
  Graph live;  // infers edges across every submission since the last reset
  std::deque<TaskState> states;
  std::size_t host_in_flight = 0;
  std::set<std::shared_ptr<BufferStorage>> buffers;  // replicas to bring home at the end
  // Kernels by (device, source hash, kernel name): held here because a
  // Program hands out kernels it does not keep, and looking one up in the
  // compile cache costs more than launching it.
  std::map<std::tuple<std::size_t, std::uint64_t, std::string>, std::shared_ptr<Kernel>> kernels;

  // All below run with `mutex` held.
  TaskId append(Task task);
  void start(std::uint32_t id, std::vector<std::uint32_t>& ready);
  void release(std::uint32_t id, std::vector<std::uint32_t>& ready);
  void fail(std::uint32_t id, std::exception_ptr error, std::vector<std::uint32_t>& ready);
  void drain(std::vector<std::uint32_t>& ready);
  std::size_t choose_device(const Task& task);
  void start_device_task(std::uint32_t id);
  void start_host_task(std::uint32_t id);
  void run_host_task(std::uint32_t id);  // on a host worker, without the lock
  void finish_host_task(std::uint32_t id, std::exception_ptr error);
};

TaskId Executor::State::append(Task task) {
  // The function lives in the task state alone: dropping it there must
  // release what it holds (synchronize's promise).
  std::function<void()> function = std::move(task.function);
  task.function = nullptr;
  const TaskId id = live.add(std::move(task));
  TaskState& state = states.emplace_back();
  state.task = live.task(id);
  state.task.function = std::move(function);
  std::vector<std::uint32_t> ready;
  for (TaskId dependency : state.task.dependencies) {
    TaskState& before = states[dependency.index];
    if (!before.released) {
      ++state.unreleased;
      before.dependents.push_back(id.index);
    }
  }
  if (state.unreleased == 0) ready.push_back(id.index);
  drain(ready);
  return id;
}

void Executor::State::drain(std::vector<std::uint32_t>& ready) {
  while (!ready.empty()) {
    const std::uint32_t id = ready.back();
    ready.pop_back();
    start(id, ready);
  }
}

void Executor::State::release(std::uint32_t id, std::vector<std::uint32_t>& ready) {
  TaskState& state = states[id];
  state.released = true;
  for (std::uint32_t dependent : state.dependents) {
    if (--states[dependent].unreleased == 0) ready.push_back(dependent);
  }
}

void Executor::State::fail(std::uint32_t id, std::exception_ptr error,
                           std::vector<std::uint32_t>& ready) {
  TaskState& state = states[id];
  state.error = std::move(error);
  state.finished = true;
  // Dropping the function breaks any promise it holds (synchronize's).
  state.task.function = nullptr;
  release(id, ready);
}

void Executor::State::start(std::uint32_t id, std::vector<std::uint32_t>& ready) {
  TaskState& state = states[id];
  for (TaskId dependency : state.task.dependencies) {
    const TaskState& before = states[dependency.index];
    if (before.error) {
      const std::string why = state.task.label({id}) + " did not run: it depends on " +
                              before.task.label(dependency) + ", which failed";
      fail(id, std::make_exception_ptr(Error(why)), ready);
      return;
    }
  }
  try {
    if (state.task.kind == TaskKind::host) {
      start_host_task(id);
      return;  // released when it finishes
    }
    start_device_task(id);
    release(id, ready);
  } catch (...) {
    fail(id, std::current_exception(), ready);
  }
}

std::size_t Executor::State::choose_device(const Task& task) {
  if (task.options.device) {
    if (*task.options.device >= devices.size()) {
      throw InvalidArgument("the task asks for device " + std::to_string(*task.options.device) +
                            " but the executor has " + std::to_string(devices.size()));
    }
    return *task.options.device;
  }
  if (options.policy == SchedulingPolicy::least_loaded) {
    std::size_t best = 0;
    for (std::size_t d = 1; d < devices.size(); ++d) {
      if (lanes[d].in_flight() < lanes[best].in_flight()) best = d;
    }
    return best;
  }
  return next_device++ % devices.size();
}

void Executor::State::start_device_task(std::uint32_t id) {
  TaskState& state = states[id];
  const Task& task = state.task;
  const std::size_t d = choose_device(task);
  Device& device = *devices[d];
  detail::DeviceLanes& lane = lanes[d];
  Queue& queue = task.kind == TaskKind::kernel ? lane.next_compute() : lane.copy_in();

  // Producers of the data this task uses; host tasks among them are done.
  std::vector<std::shared_ptr<Event>> producers;
  for (TaskId dependency : task.dependencies) {
    if (const auto& event = states[dependency.index].event) producers.push_back(event);
  }
  detail::Coherence coherence(devices, lanes);
  std::vector<std::shared_ptr<Event>> waits = producers;
  std::vector<DeviceBuffer*> memories;
  for (const Access& access : task.accesses) {
    buffers.insert(access.slice.storage);
    memories.push_back(&coherence.prepare_on_device(access, d, producers, waits));
  }
  for (const auto& event : waits) {
    if (event->is_complete()) continue;
    queue.wait_for(*event);
  }

  std::shared_ptr<Event> done;
  switch (task.kind) {
    case TaskKind::kernel: {
      std::shared_ptr<Kernel>& kernel = kernels[{d, task.source_hash, task.kernel_name}];
      if (!kernel) kernel = runtime.program(device, task.source)->kernel(task.kernel_name);
      std::vector<KernelArg> args;
      for (const auto& arg : task.args) {
        args.push_back(std::holds_alternative<std::size_t>(arg)
                           ? KernelArg::from(*memories[std::get<std::size_t>(arg)])
                           : std::get<KernelArg>(arg));
      }
      done = queue.launch(*kernel, *task.range, std::span<const KernelArg>(args));
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
  for (const Access& access : task.accesses) {
    if (writes(access.mode)) coherence.written_on_device(access, d);
  }
  state.event = done;
  state.queue = &queue;
  state.device = d;
  lane.track(done);
  ++task_counts[d];
}

void Executor::State::start_host_task(std::uint32_t id) {
  TaskState& state = states[id];
  detail::Coherence coherence(devices, lanes);
  std::vector<std::shared_ptr<Event>> waits;
  std::vector<std::shared_ptr<Event>> producers;
  for (TaskId dependency : state.task.dependencies) {
    if (const auto& event = states[dependency.index].event) producers.push_back(event);
  }
  waits = producers;
  for (const Access& access : state.task.accesses) {
    buffers.insert(access.slice.storage);
    coherence.prepare_on_host(access, producers, waits);
  }
  for (const Access& access : state.task.accesses) {
    if (writes(access.mode)) coherence.written_on_host(access);
  }
  state.host_waits = std::move(waits);
  ++host_in_flight;
  // Waiting for device events happens on the host worker, never on the
  // thread that feeds the devices.
  HostWorkers::instance().post({this, id});
}

void Executor::State::run_host_task(std::uint32_t id) {
  std::vector<std::shared_ptr<Event>> waits;
  std::function<void()> function;
  {
    std::lock_guard lock(mutex);
    waits = std::move(states[id].host_waits);
    function = std::move(states[id].task.function);
  }
  std::exception_ptr error;
  try {
    for (const auto& event : waits) event->wait();
    if (function) function();
  } catch (...) {
    error = std::current_exception();
  }
  function = nullptr;  // releases what it holds before dependents are told
  finish_host_task(id, error);
}

void Executor::State::finish_host_task(std::uint32_t id, std::exception_ptr error) {
  std::lock_guard lock(mutex);
  std::vector<std::uint32_t> ready;
  if (error) {
    fail(id, error, ready);
  } else {
    states[id].finished = true;
    release(id, ready);
  }
  drain(ready);
  --host_in_flight;
  host_idle.notify_all();
}

void HostWorkers::run_one() {
  HostWork work{};
  {
    std::lock_guard lock(mutex_);
    work = queue_.front();
    queue_.pop_front();
  }
  work.state->run_host_task(work.id);
}

Executor::Executor(Runtime& runtime, ExecutorOptions options)
    : state_(std::make_unique<State>(runtime, std::move(options))) {
  State& state = *state_;
  state.devices = state.options.devices.empty() ? runtime.devices() : state.options.devices;
  if (state.devices.empty()) {
    throw InvalidArgument("an executor needs at least one device, and the runtime has none; "
                          "run alloy-info to see why");
  }
  for (Device* device : state.devices) {
    state.lanes.emplace_back(*device, std::max(1u, state.options.compute_lanes));
  }
  state.task_counts.assign(state.devices.size(), 0);
}

Executor::~Executor() {
  try {
    wait();
  } catch (const std::exception& error) {
    log_warning(std::string("executor destroyed after a failure: ") + error.what());
  }
  // Buffers outlive the executor: their contents come home, and the device
  // replicas this executor made are released with its devices' queues.
  try {
    detail::Coherence coherence(state_->devices, state_->lanes);
    for (const auto& storage : state_->buffers) coherence.bring_home(*storage);
  } catch (const std::exception& error) {
    log_warning(std::string("executor could not bring buffers back to host memory: ") +
                error.what());
  }
}

void Executor::run(const Graph& graph) {
  std::lock_guard lock(state_->mutex);
  const auto first = static_cast<std::uint32_t>(state_->states.size());
  for (const Task& original : graph.tasks()) {
    Task task = original;
    // The live graph infers the edges again, now also to earlier submissions;
    // only the explicit ones are carried over.
    task.dependencies.clear();
    for (TaskId before : original.ordered_after) {
      task.dependencies.push_back({first + before.index});
    }
    state_->append(std::move(task));
  }
}

TaskId Executor::submit(Task task) {
  std::lock_guard lock(state_->mutex);
  return state_->append(std::move(task));
}

TaskId Executor::submit_only_task(const Graph& one) {
  Task task = one.tasks().front();
  task.dependencies.clear();
  task.ordered_after.clear();
  return submit(std::move(task));
}

TaskId Executor::kernel(ProgramSource source, std::string kernel_name, LaunchRange range,
                        std::vector<TaskArg> args, TaskOptions options) {
  Graph one;
  one.kernel(std::move(source), std::move(kernel_name), range, std::move(args), std::move(options));
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
  host({read(slice)}, [reached = std::move(reached)] { reached->set_value(); }, std::move(options));
  try {
    done.get();
  } catch (const std::future_error&) {
    throw Error("synchronize: a task this slice depends on failed; wait() names it");
  }
}

void Executor::wait() {
  State& state = *state_;
  std::unique_lock lock(state.mutex);
  state.host_idle.wait(lock, [&] { return state.host_in_flight == 0; });
  const std::size_t count = state.states.size();
  std::vector<std::pair<std::uint32_t, std::shared_ptr<Event>>> device_events;
  for (std::uint32_t id = 0; id < count; ++id) {
    if (state.states[id].event) device_events.emplace_back(id, state.states[id].event);
  }
  lock.unlock();

  std::vector<std::pair<std::uint32_t, std::exception_ptr>> device_failures;
  for (const auto& [id, event] : device_events) {
    try {
      event->wait();
    } catch (...) {
      device_failures.emplace_back(id, std::current_exception());
    }
  }

  lock.lock();
  for (auto& [id, error] : device_failures) {
    if (!state.states[id].error) state.states[id].error = error;
  }
  std::string first_failure;
  for (std::uint32_t id = 0; id < count && first_failure.empty(); ++id) {
    const TaskState& task = state.states[id];
    if (task.error) first_failure = task.task.label({id}) + " failed: " + describe(task.error);
  }
  // Forget finished work unless more arrived meanwhile; buffers keep their state.
  if (state.states.size() == count && state.host_in_flight == 0) {
    state.states.clear();
    state.live = Graph();
  }
  lock.unlock();
  if (!first_failure.empty()) throw Error(first_failure);
}

const std::vector<Device*>& Executor::devices() const { return state_->devices; }

std::vector<std::size_t> Executor::tasks_per_device() const {
  std::lock_guard lock(state_->mutex);
  return state_->task_counts;
}

}  // namespace alloy
