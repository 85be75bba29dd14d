// The executor's data flow: submission, edges to earlier work, ready order,
// release, failure, and forgetting finished work.
#include <algorithm>
#include <map>
#include <string>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "executor_state.hpp"
#include "sharing/memory_share.hpp"
#include "sharing/priority_class.hpp"
#include "sharing/slice_time.hpp"

namespace alloy::detail {
namespace {

unsigned host_threads(const ExecutorOptions& options) {
  if (options.host_threads != 0) return options.host_threads;
  return std::max(4u, std::thread::hardware_concurrency());
}

unsigned host_thread_ceiling(const ExecutorOptions& options) {
  const unsigned running = host_threads(options);
  if (options.host_thread_ceiling == 0) return running + 256;
  if (options.host_thread_ceiling < running) {
    throw InvalidArgument("ExecutorOptions::host_thread_ceiling (" + std::to_string(options.host_thread_ceiling) +
                          ") is below the host threads that may run at once (" + std::to_string(running) +
                          "); give at least as many, more to let host tasks block in synchronize or wait");
  }
  return options.host_thread_ceiling;
}

std::vector<Device*> chosen_devices(Runtime& runtime, const ExecutorOptions& options) {
  std::vector<Device*> devices = options.devices.empty() ? runtime.devices() : options.devices;
  if (devices.empty()) {
    throw InvalidArgument("an executor needs at least one device, and the runtime has none; "
                          "run alloy-info to see why");
  }
  return devices;
}

/// The options with what the environment says of tracing, the class and the slice time.
ExecutorOptions with_environment(ExecutorOptions options) {
  options = with_tracing_from_environment(std::move(options));
  options.priority_class = priority_class_or_environment(options.priority_class);
  options.slice_time = slice_time_or_environment(options.slice_time);
  check_memory_share(options.memory_share);
  return options;
}

std::vector<DeviceLanes> lanes_for(const std::vector<Device*>& devices, const ExecutorOptions& options) {
  std::vector<DeviceLanes> lanes;
  const QueuePriority priority = queue_priority_of(*options.priority_class);
  for (Device* device : devices) lanes.emplace_back(*device, std::max(1u, options.compute_lanes), priority);
  return lanes;
}

}  // namespace

void watch_soon(RunRecord& run) {
  std::lock_guard link(run.link->mutex);
  // Gone, after finishing every run, if null.
  if (ExecutorState* executor = run.link->executor) executor->watch_soon(run);
}

RunningHostTask& running_host_task() {
  thread_local RunningHostTask running;
  return running;
}

ExecutorState::ExecutorState(Runtime& runtime_in, ExecutorOptions options_in)
    : runtime(runtime_in),
      options(with_environment(std::move(options_in))),
      devices(chosen_devices(runtime, options)),
      recorder(make_recorder(options, devices)),
      lanes(lanes_for(devices, options)),
      planner(runtime, devices, lanes, options),
      task_counts(devices.size(), 0),
      sharing(devices, *options.priority_class, planner.shares(), *options.slice_time),
      waiting_for_memory(devices.size()),
      yielded(devices.size()),
      held_back_since_last_end(devices.size(), 0),
      placement(options, devices.size(), completions),
      host_pool(host_threads(options), host_thread_ceiling(options)) {
  link->executor = this;
  if (recorder) {
    for (std::size_t d = 0; d < devices.size(); ++d) recorder->observe(d, lanes[d]);
    planner.observe_compiles([this](const std::string& kernel, std::size_t device, auto started, auto ended) {
      recorder->compile_for_current_task(kernel, devices[device]->label(), started, ended);
    });
  }
  // A tuned kernel's profile says how long it takes on a device before the
  // executor has measured it, as its resolved configuration there has it:
  // an entry that does not build or launch there gave way to the defaults,
  // which have no time.
  placement.set_tuned_times([this](const Task& task, std::size_t device) -> std::optional<double> {
    const KernelWork& kernel = *task.kernel();
    if (!std::holds_alternative<TunedKernelCall>(kernel.program)) return std::nullopt;
    try {
      const ResolvedKernel& resolved = planner.resolve(kernel, device);
      return resolved.tuned->seconds_here();
    } catch (const Error&) {
      return std::nullopt;  // its launch there reports why, should it go there
    }
  });
}

std::string ExecutorState::label(std::uint64_t id) const {
  const TaskState& state = task(id);
  const RunRecord& run = *state.run;
  if (run.number == 0) return state.task->label({id});
  return task_label(state.in_graph, state.task->options.name, state.task->kind_name(), run.number);
}

std::shared_ptr<RunRecord> ExecutorState::add_run(std::shared_ptr<const GraphData> graph,
                                                 const RunOptions& run_options,
                                                 std::optional<OneTask> one_task) {
  const std::vector<TaskId>& after = run_options.after;
  for (TaskId before : after) {
    if (before.index >= next_id()) {
      throw InvalidArgument("a task is to run after task " + std::to_string(before.index) +
                            ", which this executor has not been given yet (ids come from "
                            "Run::task)");
    }
  }
  auto run = std::make_shared<RunRecord>();
  run->graph = std::move(graph);
  run->tasks = run->graph->tasks.size();
  run->first = next_id();
  run->number = one_task ? 0 : ++graph_runs;
  run->policy = run_options.policy;
  run->timed = run_options.timed;
  run->link = link;
  if (recorder) run->traced_as = recorder->run_submitted(run->graph, run->first, run->number, run->submitted);
  run->tasks_per_device.assign(devices.size(), 0);
  run->device_commands.reserve(run->size());  // one allocation, not one per doubling
  run->unreleased = run->size();
  runs.push_back(run);
  add_task_states(*run, after, std::move(one_task));
  link_to_earlier_work(*run);
  // Every task is in before any starts, so the ready ones go in rank order.
  for (std::uint64_t id = run->first; id < run->first + run->size(); ++id) {
    if (task(id).unreleased == 0) make_ready(id);
  }
  if (run->size() == 0) run->finish();
  drain();
  return run;
}

void ExecutorState::add_task_states(RunRecord& run, const std::vector<TaskId>& after,
                                    std::optional<OneTask> one_task) {
  const GraphData& graph = *run.graph;
  for (std::size_t i = 0; i < run.size(); ++i) {
    TaskState& state = tasks.emplace_back();
    state.task = &graph.tasks[i];
    state.run = &run;
    state.in_graph = i;
    state.rank = {state.task->options.priority.value_or(0), graph.critical_paths[i]};
    state.marker = one_task && one_task->marker;
    state.runs_inline = state.task->moves_no_bytes() || state.marker;
    if (const auto* host = std::get_if<HostWork>(&state.task->work)) {
      state.function = one_task ? std::move(one_task->function) : host->function;
    }
    // The entry tasks carry `after`; the others follow them.
    if (graph.dependencies[i].empty()) {
      state.earlier = after;
      state.ordered_after = after;
      sort_unique(state.ordered_after);
    }
  }
}

void ExecutorState::link_to_earlier_work(RunRecord& run) {
  // Within the graph, its own edges; to earlier submissions, those of the
  // graph's first accesses.
  tracker.link_run(run.graph->tracker, run.first, [&](TaskId later, TaskId earlier) {
    task(run.first + later.index).earlier.push_back(earlier);
  });
  std::vector<EarlierEdge> traced_edges;  // for the trace: those to earlier submissions
  for (std::uint64_t id = run.first; id < run.first + run.size(); ++id) {
    TaskState& state = task(id);
    sort_unique(state.earlier);
    for_each_dependency(state, [&](std::uint64_t before) {
      TaskState& earlier = task(before);
      if (!earlier.released) {
        ++state.unreleased;
        earlier.dependents.push_back(id);
      }
    });
    if (recorder) {
      for_each_earlier_dependency(state, [&](std::uint64_t before) {
        traced_edges.push_back({static_cast<std::uint32_t>(id - run.first), before});
      });
    }
  }
  if (!traced_edges.empty()) recorder->follows_earlier(run.traced_as, traced_edges);
}

bool ExecutorState::waits_for(std::uint64_t id, std::uint64_t running) const {
  std::vector<std::uint64_t> pending{id};
  std::set<std::uint64_t> seen;
  while (!pending.empty()) {
    const std::uint64_t next = pending.back();
    pending.pop_back();
    if (next == running) return true;
    if (!live(next) || task(next).released || !seen.insert(next).second) continue;
    for_each_dependency(task(next), [&](std::uint64_t before) { pending.push_back(before); });
  }
  return false;
}

void ExecutorState::make_ready(std::uint64_t id) {
  ready.push_back({task(id).rank, id});
  std::push_heap(ready.begin(), ready.end());
}

void ExecutorState::drain() {
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end());
    const std::uint64_t id = ready.back().id;
    ready.pop_back();
    start(id);
  }
}

void ExecutorState::release(std::uint64_t id) {
  TaskState& state = task(id);
  state.released = true;
  for (std::uint64_t dependent : state.dependents) {
    if (--task(dependent).unreleased == 0) make_ready(dependent);
  }
  if (--state.run->unreleased == 0) complete_when_commands_done(*state.run);
}

void ExecutorState::fail(std::uint64_t id, std::exception_ptr error) {
  TaskState& state = task(id);
  state.error = std::move(error);
  // Dropping the function breaks any promise it holds (synchronize's), and
  // synchronize throws: that reports it. Its own failure is not reported again.
  state.function = nullptr;
  if (!state.marker) state.run->add_failure(id, label(id) + " failed: " + describe(state.error));
  release(id);
}

bool ExecutorState::inherits_failure(const TaskState& state, std::uint64_t failed) const {
  const TaskState& failed_state = task(failed);
  if (failed_state.marker) return false;
  const auto ordered = [](const std::vector<TaskId>& edges, std::uint64_t index) {
    return std::binary_search(edges.begin(), edges.end(), TaskId{index},
                              [](TaskId a, TaskId b) { return a.index < b.index; });
  };
  if (ordered(state.ordered_after, failed)) return true;
  const RunRecord& run = *state.run;
  if (failed_state.run == &run && ordered(run.graph->ordered_after[state.in_graph], failed - run.first)) {
    return true;
  }
  for (const Access& written : failed_state.task->accesses) {
    if (!writes(written.mode)) continue;
    for (const Access& access : state.task->accesses) {
      if (access.slice.storage == written.slice.storage && access.slice.range.overlaps(written.slice.range)) {
        return true;
      }
    }
  }
  return false;
}

std::optional<std::uint64_t> ExecutorState::inherited_failure(const TaskState& state) const {
  std::optional<std::uint64_t> failed;
  for_each_dependency(state, [&](std::uint64_t before) {
    if (!failed && task(before).error && inherits_failure(state, before)) failed = before;
  });
  return failed;
}

std::string ExecutorState::failure_behind(std::uint64_t id) const {
  while (const std::optional<std::uint64_t> failed = inherited_failure(task(id))) id = *failed;
  return label(id) + ", which failed: " + describe(task(id).error);
}

void ExecutorState::start(std::uint64_t id) {
  TaskState& state = task(id);
  if (const std::optional<std::uint64_t> failed = inherited_failure(state)) {
    fail(id, std::make_exception_ptr(Error("it did not run: it depends on " + label(*failed) +
                                           ", which failed")));
    return;
  }
  try {
    if (state.task->file_read()) {
      start_file_read(id);  // released when it finishes
      retire_evicted();     // a read into a device may have made room there
      return;
    }
    if (state.task->on_host() || state.runs_inline) {
      start_host_task(id);
      return;  // released when it finishes
    }
    if (start_device_task(id)) release(id);
  } catch (...) {
    fail(id, std::current_exception());
  }
  retire_evicted();
}

void ExecutorState::complete_when_commands_done(RunRecord& run) {
  if (run.device_commands.empty()) {
    run.finish();
  } else if (run.number == 0) {
    unwatched.push_back(run.shared_from_this());
    if (run.asked || unwatched.size() >= unwatched_batch) watch_unwatched();
  } else {
    watch_completion({run.shared_from_this()});
  }
}

void ExecutorState::watch_unwatched() {
  if (!unwatched.empty()) watch_completion(std::exchange(unwatched, {}));
}

void ExecutorState::watch_completion(std::vector<std::shared_ptr<RunRecord>> batch) {
  std::map<Queue*, std::shared_ptr<Event>> last_on_queue;
  for (const auto& run : batch) {
    for (const auto& [id, event] : run->device_commands) last_on_queue[task(id).queue] = event;
  }
  std::vector<std::shared_ptr<Event>> last;
  for (auto& [queue, event] : last_on_queue) last.push_back(std::move(event));
  // The completion lane waits for them; then every command's event is
  // complete, and asking each whether it failed no longer blocks.
  completions.watch(std::move(last), [this, batch = std::move(batch)](std::exception_ptr) {
    for (const auto& run : batch) {
      std::vector<std::pair<std::uint64_t, std::exception_ptr>> failures;
      for (const auto& [id, event] : run->device_commands) {
        try {
          event->wait();
        } catch (...) {
          failures.emplace_back(id, std::current_exception());
        }
      }
      if (!failures.empty()) {
        std::lock_guard lock(mutex);
        for (auto& [id, error] : failures) {
          if (!live(id)) continue;  // wait() on this thread forgot it: it cannot wait for callbacks
          TaskState& state = task(id);
          if (state.error) continue;
          // Moved: the task holds the only reference, freed under the lock.
          state.error = std::move(error);
          run->add_failure(id, label(id) + " failed: " + describe(state.error));
        }
      }
      run->finish();
    }
  });
}

void ExecutorState::forget_finished() {
  for (auto& lane : lanes) lane.all_complete();
  first_live = next_id();
  tasks.clear();
  for (const auto& run : runs) run->graph.reset();
  runs.clear();
  tracker = DependencyTracker();
  planner.forget_dropped_buffers();
}

}  // namespace alloy::detail
