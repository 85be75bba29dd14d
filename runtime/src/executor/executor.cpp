// The Executor's public calls: submission, synchronize, wait, teardown.
#include "alloy/executor.hpp"

#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "cross_executor_waits.hpp"
#include "executor_state.hpp"

namespace alloy {

Executor::Executor(Runtime& runtime, ExecutorOptions options)
    : state_(std::make_unique<detail::ExecutorState>(runtime, std::move(options))) {}

Executor::~Executor() {
  try {
    wait();
  } catch (const std::exception& error) {
    log_warning(std::string("executor destroyed after a failure: ") + error.what());
  }
  state_->close();
}

Run Executor::run(const Graph& graph, RunOptions options) {
  std::shared_ptr<const detail::GraphData> snapshot = detail::snapshot(graph);
  return Run(state_->submit(std::move(snapshot), options));
}

Run Executor::submit_only_task(Graph one, std::vector<TaskId> after, bool marker) {
  std::shared_ptr<detail::GraphData> graph = detail::take(std::move(one));
  graph->critical_paths = {1};
  graph->critical_paths_current = true;
  // Moved out: only the executor's task state then holds what the function
  // captured (synchronize's promise breaks when that state drops it).
  detail::ExecutorState::OneTask one_task{nullptr, marker};
  if (auto* host = std::get_if<detail::HostWork>(&graph->tasks.front().work)) {
    one_task.function = std::move(host->function);
  }
  return Run(state_->submit(std::move(graph), RunOptions{std::nullopt, std::move(after)},
                            std::move(one_task)));
}

Run Executor::kernel(const ProgramSource& source, std::string kernel_name, LaunchRange range,
                     std::vector<TaskArg> args, TaskOptions options) {
  std::vector<TaskId> after = std::exchange(options.after, {});
  Graph one;
  one.kernel(source, std::move(kernel_name), range, std::move(args), std::move(options));
  return submit_only_task(std::move(one), std::move(after));
}

Run Executor::kernel(const TunableKernel& kernel, Extent problem, std::vector<TaskArg> args,
                     TaskOptions options) {
  std::vector<TaskId> after = std::exchange(options.after, {});
  Graph one;
  one.kernel(kernel, problem, std::move(args), std::move(options));
  return submit_only_task(std::move(one), std::move(after));
}

Run Executor::copy(BufferSlice from, BufferSlice to, TaskOptions options) {
  std::vector<TaskId> after = std::exchange(options.after, {});
  Graph one;
  one.copy(std::move(from), std::move(to), std::move(options));
  return submit_only_task(std::move(one), std::move(after));
}

Run Executor::host(std::vector<Access> accesses, std::function<void()> function, TaskOptions options) {
  std::vector<TaskId> after = std::exchange(options.after, {});
  Graph one;
  one.host(std::move(accesses), std::move(function), std::move(options));
  return submit_only_task(std::move(one), std::move(after));
}

Run Executor::read_file(std::shared_ptr<const InputFile> file, std::size_t file_offset, BufferSlice into,
                        TaskOptions options) {
  std::vector<TaskId> after = std::exchange(options.after, {});
  Graph one;
  one.read_file(std::move(file), file_offset, std::move(into), std::move(options));
  return submit_only_task(std::move(one), std::move(after));
}

Run Executor::async(std::vector<Access> accesses, AsyncStart start, TaskOptions options) {
  std::vector<TaskId> after = std::exchange(options.after, {});
  Graph one;
  one.async(std::move(accesses), std::move(start), std::move(options));
  return submit_only_task(std::move(one), std::move(after));
}

void Executor::synchronize(const BufferSlice& slice) {
  detail::ExecutorState& state = *state_;
  auto reached = std::make_shared<std::promise<void>>();
  std::future<void> done = reached->get_future();
  TaskOptions options;
  options.name = "synchronize";
  // Only the task holds the promise: if the task is dropped unrun, the
  // promise breaks and get() below throws instead of waiting for ever.
  Graph one;
  one.host({read(slice)}, [reached = std::move(reached)] { reached->set_value(); }, std::move(options));
  const TaskId marker = submit_only_task(std::move(one), {}, true).task();
  const detail::RunningHostTask running = detail::running_host_task();
  if (running.executor == &state) state.check_not_waited_for(marker.index, running.id);
  // A host task blocked here may be what another executor's blocked task
  // waits for: a wait that closes such a cycle is refused.
  std::optional<detail::CrossExecutorWait> registered;
  if (running.executor) registered.emplace(*running.executor, running.id, state, marker.index);
  detail::HostPool::Blocked blocked;  // others' host tasks may be what it waits for
  try {
    done.get();
  } catch (const std::future_error&) {
    state.throw_synchronize_failure(marker.index);
  }
}

TunedKernel Executor::tuned(std::size_t device, const TunableKernel& kernel, const Extent& problem) {
  detail::ExecutorState& state = *state_;
  if (device >= state.devices.size()) {
    throw InvalidArgument("Executor::tuned: device " + std::to_string(device) + ", but the executor has " +
                          std::to_string(state.devices.size()));
  }
  kernel.validate();
  auto shared = std::make_shared<const TunableKernel>(kernel);
  const detail::KernelWork work{detail::TunedKernelCall{shared, problem, {}}, kernel.kernel_name, {},
                                detail::tuned_kernel_key(kernel.description_hash(), problem)};
  const detail::ResolvedKernel& resolved = state.resolve(work, device);
  return {resolved.kernel, resolved.tuned->range, resolved.tuned->choice};
}

void Executor::wait() {
  detail::ExecutorState& state = *state_;
  if (detail::running_host_task().executor == &state) {
    throw Error("wait called from " + state.label_of(detail::running_host_task().id) +
                " of the same executor would wait for that task itself; use synchronize on the "
                "slices it needs, or wait from outside the executor's tasks");
  }
  detail::HostPool::Blocked blocked;  // others' host tasks may be what it waits for
  state.wait();
}

const std::vector<Device*>& Executor::devices() const { return state_->devices; }

PerformanceModel& Executor::performance_model() { return state_->performance_model(); }

Runtime& Executor::runtime() const { return state_->runtime; }

PriorityClass Executor::priority_class() const { return *state_->options.priority_class; }

std::vector<DeviceJob> Executor::jobs_on(std::size_t device) const {
  if (device >= state_->devices.size()) {
    throw InvalidArgument("Executor::jobs_on(" + std::to_string(device) + "): the executor has " +
                          std::to_string(state_->devices.size()) + " device(s)");
  }
  return state_->jobs_on(device);
}

std::size_t Executor::device_memory(std::size_t device) const {
  if (device >= state_->devices.size()) {
    throw InvalidArgument("device_memory(" + std::to_string(device) + ") of an executor of " +
                          std::to_string(state_->devices.size()) + " devices");
  }
  return state_->device_memory(device);
}

std::vector<std::size_t> Executor::tasks_per_device() const {
  return state_->tasks_per_device();
}

}  // namespace alloy
