// Starting a device task: place, plan, enqueue, commit, measure.
#include <algorithm>
#include <chrono>

#include "executor_state.hpp"
#include "tracing/profiler_ranges.hpp"

namespace alloy::detail {
namespace {

const char* policy_name(const Task& task, SchedulingPolicy policy) {
  if (task.options.device) return "pinned";
  switch (policy) {
    case SchedulingPolicy::round_robin: return "round_robin";
    case SchedulingPolicy::least_loaded: return "least_loaded";
    case SchedulingPolicy::earliest_finish_time: return "earliest_finish_time";
  }
  return "?";
}

}  // namespace

TraceAttribution ExecutorState::attribution(std::uint64_t id) const {
  const TaskState& state = task(id);
  return {state.run->traced_as, static_cast<std::uint32_t>(state.in_graph)};
}

std::size_t ExecutorState::place(std::uint64_t id, SchedulingPolicy policy) {
  const Task& work = *task(id).task;
  std::vector<DeviceLoad> loads;
  if (placement.reads_loads(work, policy)) {
    for (std::size_t device = 0; device < devices.size(); ++device) {
      DeviceLoad& load = loads.emplace_back();
      load.in_flight = lanes[device].in_flight();
      if (policy == SchedulingPolicy::earliest_finish_time) load.missing_bytes = planner.missing_bytes(work, device);
    }
  }
  return placement.choose(work, policy, loads);
}

bool ExecutorState::dependencies_complete(const TaskState& state) const {
  bool complete = true;
  for_each_dependency(state, [&](std::uint64_t before) {
    const std::shared_ptr<Event>& event = task(before).event;
    complete = complete && (!event || event->is_complete());
  });
  return complete;
}

Producers ExecutorState::producers_of(const TaskState& state, const Queue& queue) const {
  Producers producers;
  for_each_dependency(state, [&](std::uint64_t before) {
    const TaskState& earlier = task(before);
    if (!earlier.event) return;
    producers.all.push_back(earlier.event);
    if (earlier.queue != &queue) producers.waits.push_back(earlier.event);
  });
  return producers;
}

bool ExecutorState::start_device_task(std::uint64_t id) {
  TaskState& state = task(id);
  const Task& work = *state.task;
  const SchedulingPolicy policy = placement.policy_for(work, state.run->policy);
  // What follows is this task's to the trace (kernels compiled while placing
  // and planning, its commands) and to Nsight Systems and rocprof.
  const ProfilerRange range([&] { return label(id); });
  TraceRecorder::Scope traced(recorder.get(), recorder ? attribution(id) : TraceAttribution{});

  if (!state.device) state.device = place(id, policy);
  const std::size_t d = *state.device;
  // Read once: the bound, the slicing and the trace all ask.
  const std::optional<double> estimate =
      sharing.counts_commands() || recorder ? placement.estimate(work, d) : std::nullopt;
  const auto predicted = std::chrono::nanoseconds(static_cast<std::int64_t>(estimate.value_or(0.0) * 1e9));
  if (!sharing.may_start(d, predicted)) {
    yield_to_critical_work(id, d);
    return false;
  }
  std::optional<DevicePlan> plan = planner.plan(
      work, d, [&] { return dependencies_complete(state); }, [&] { return label(id); }, id);
  if (!plan) {
    wait_for_memory(id, d);
    return false;
  }
  fitted_after_waiting(d);
  sharing.memory_in_use(d, planner.memory_used(d));
  if (recorder) {
    describe_plan(traced, *plan, policy, estimate);
    traced.decisions().others_in_flight = sharing.others_in_flight(d);
  }

  const Lane kind = DevicePlanner::lane_of(work);
  Queue& queue = lanes[d].queue(kind);
  // A background executor slices its long kernels, so it times whole ones
  // to know which are long; not those of a run timed command by command.
  const bool slices = sharing.slices_kernels() && plan->resolved != nullptr && !state.run->timed;
  if (slices) plan->slicing = slicing_of(*plan, estimate);
  const bool times_kernel = !plan->slicing.sliced() && placement.samples_kernel(work, policy, d, slices);
  planner.enqueue(*plan, queue, producers_of(state, queue),
                  Timing{placement.measures(policy), times_kernel || state.run->timed});
  const std::shared_ptr<Event> done = planner.commit(*plan, queue);
  if (plan->captured) {
    // Handed in before the run's own watch: the file is there when the run
    // is done (synchronize, which waits only for the bytes, may return first).
    completions.watch({done}, [captured = plan->captured](std::exception_ptr failure) {
      if (!failure) LaunchCapture::write(*captured);
    });
  }

  if (sharing.counts_commands()) count_on_device(d, {predicted, plan->slicing.sliced()}, done);
  released_on_device(id, d, queue, policy, done);
  if (state.run->timed) state.run->timed_commands.push_back({id, d, kind, plan->command});
  if (times_kernel || !plan->transfers.empty()) {
    placement.measure(work, d, times_kernel ? plan->command : nullptr, planner.take_transfers(*plan));
  }
  return true;
}

KernelSlicing ExecutorState::slicing_of(const DevicePlan& plan, std::optional<double> predicted) const {
  if (!plan.resolved->kernel->program().sliceable()) return {};
  return slicing_for(plan.resolved->range(*plan.task->kernel()), predicted,
                     sharing.slice_time(), devices[plan.device]->info().compute_units);
}

void ExecutorState::describe_plan(TraceRecorder::Scope& traced, const DevicePlan& plan, SchedulingPolicy policy,
                                  std::optional<double> predicted) const {
  const Task& work = *plan.task;
  TraceDecisions& decided = traced.decisions();
  decided.policy = policy_name(work, policy);
  decided.predicted_seconds = predicted;
  if (plan.resolved && plan.resolved->tuned) {
    decided.configuration = plan.resolved->tuned->described;
    decided.profile_match = to_string(plan.resolved->tuned->choice.match).data();  // a literal
  }
}

void ExecutorState::released_on_device(std::uint64_t id, std::size_t device, Queue& queue, SchedulingPolicy policy,
                                       std::shared_ptr<Event> done) {
  TaskState& state = task(id);
  state.queue = &queue;
  state.run->device_commands.emplace_back(id, done);
  state.run->count_device_task(device);
  ++task_counts[device];
  // Only placement by load asks what is in flight; skip the bookkeeping
  // until a task placed that way comes.
  tracks_load = tracks_load || policy != SchedulingPolicy::round_robin;
  if (tracks_load) lanes[device].track(done);
  state.event = std::move(done);
}

void ExecutorState::wait_for_memory(std::uint64_t id, std::size_t device) {
  // Placed already: it starts on this device once evicted memory is freed.
  waiting_for_memory[device].push_back(id);
  ++handed_off;
}

void ExecutorState::fitted_after_waiting(std::size_t device) {
  if (!planner.take_reservation_ended(device)) return;
  // The replicas the first waiter kept may now be evicted for the others.
  const std::vector<std::uint64_t> waiting = std::exchange(waiting_for_memory[device], {});
  for (std::uint64_t other : waiting) make_ready(other);
  handed_off -= waiting.size();
}

void ExecutorState::retire_evicted() {
  for (Residency::Retirement& evicted : planner.take_retirements()) {
    auto retirement = std::make_shared<Residency::Retirement>(std::move(evicted));
    std::vector<std::shared_ptr<Event>> events = retirement->events;
    completions.watch(std::move(events), [this, retirement](std::exception_ptr) {
      // Freeing may synchronize with the device (cuMemFree does): not under the lock.
      retirement->memory.reset();
      retirement->events.clear();
      std::lock_guard lock(mutex);
      planner.freed(*retirement);
      sharing.memory_in_use(retirement->device, planner.memory_used(retirement->device));
      retry_waiting_for_memory(retirement->device);
    });
  }
}

void ExecutorState::retry_waiting_for_memory(std::size_t device) { retry_parked(waiting_for_memory[device]); }

void ExecutorState::retry_parked(std::vector<std::uint64_t>& parked) {
  const std::vector<std::uint64_t> waiting = std::exchange(parked, {});
  for (std::uint64_t id : waiting) make_ready(id);
  handed_off -= waiting.size();
  drain();
  if (handed_off == 0) settled.notify_all();
}

void ExecutorState::yield_to_critical_work(std::uint64_t id, std::size_t device) {
  const auto now = recorder ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  yielded[device].push_back({id, now, sharing.bound(device).value_or(BackgroundBound{})});
  held_back_since_last_end[device] = 1;
  ++handed_off;
}

void ExecutorState::count_on_device(std::size_t device, DeviceSharing::InFlight work,
                                    const std::shared_ptr<Event>& done) {
  sharing.started(device, work);
  completions.watch({done}, [this, device, work](std::exception_ptr) {
    std::lock_guard lock(mutex);
    sharing.completed(device, work, std::exchange(held_back_since_last_end[device], 0) != 0);
    if (!yielded[device].empty()) retry_held_back(device);
  });
}

void ExecutorState::retry_held_back(std::size_t device) {
  std::vector<std::uint64_t> ids;
  ids.reserve(yielded[device].size());
  const auto now = recorder ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  for (const HeldBack& held : std::exchange(yielded[device], {})) {
    ids.push_back(held.id);
    if (recorder) {
      recorder->held_back(device, attribution(held.id), held.since, now,
                          static_cast<std::uint32_t>(held.bound.commands),
                          static_cast<std::uint64_t>(held.bound.predicted.count()));
    }
  }
  retry_parked(ids);
}

}  // namespace alloy::detail
