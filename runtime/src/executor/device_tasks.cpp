// Starting a device task: placement, device memory, inputs, the command.
#include <algorithm>
#include <chrono>

#include "executor_state.hpp"
#include "tracing/profiler_ranges.hpp"

namespace alloy::detail {
namespace {

void wait_on(Queue& queue, Coherence::Events waits) {
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  for (const auto& event : waits) {
    if (!event->is_complete()) queue.wait_for(*event);
  }
}

/// A copy into borrowed host memory: it runs on the copy-out lane.
bool copies_home(const Task& task) {
  return std::holds_alternative<CopyWork>(task.work) && task.accesses[1].slice.storage->host_resident();
}

/// A copy out of borrowed host memory: a host-to-device transfer.
bool copies_from_home(const Task& task) {
  return std::holds_alternative<CopyWork>(task.work) && task.accesses[0].slice.storage->host_resident();
}

Lane lane_of(const Task& task) {
  if (task.kernel()) return Lane::compute;
  return copies_home(task) ? Lane::copy_out : Lane::copy_in;
}

/// What the task's command did to its buffers: replicas used and written,
/// borrowed host bytes on their way. Layout arguments are LayoutViews'.
void record_uses(Coherence& coherence, const Task& task, std::size_t device, Queue& queue,
                 const std::shared_ptr<Event>& command, const std::vector<LayoutViews::Use>& layouts) {
  for (std::size_t i = 0; i < task.accesses.size(); ++i) {
    const Access& access = task.accesses[i];
    if (std::any_of(layouts.begin(), layouts.end(), [&](const LayoutViews::Use& use) { return use.access == i; })) {
      continue;
    }
    if (!access.slice.storage->host_resident()) {
      coherence.used_on_device(access, device, queue, command);
    } else if (writes(access.mode)) {
      coherence.landed_on_host(access, command);
    }
  }
}

std::shared_ptr<Event> enqueue(const Task& task, Queue& queue, const ResolvedKernel* resolved,
                               const std::vector<DeviceBuffer*>& memories) {
  if (const KernelWork* kernel = task.kernel()) {
    std::vector<KernelArg> args;
    args.reserve(kernel->args.size());
    for (const TaskArgument& arg : kernel->args) {
      args.push_back(std::holds_alternative<std::size_t>(arg)
                         ? KernelArg::from(*memories[std::get<std::size_t>(arg)])
                         : std::get<KernelArg>(arg));
    }
    return queue.launch(*resolved->kernel, resolved->range(*kernel), std::span<const KernelArg>(args));
  }
  if (std::holds_alternative<CopyWork>(task.work)) {
    const BufferSlice& from = task.accesses[0].slice;
    const BufferSlice& to = task.accesses[1].slice;
    const std::size_t bytes = from.range.size();
    // Borrowed memory moves straight between its host bytes and the device.
    if (copies_from_home(task)) {
      return queue.write(*memories[1], to.range.begin, from.storage->host_data() + from.range.begin, bytes);
    }
    if (copies_home(task)) {
      return queue.read(*memories[0], from.range.begin, to.storage->host_data() + to.range.begin, bytes);
    }
    return queue.copy(*memories[0], from.range.begin, *memories[1], to.range.begin, bytes);
  }
  const auto& fill = std::get<FillWork>(task.work);
  const ByteRange range = task.accesses[0].slice.range;
  return queue.fill(*memories[0], range.begin, &fill.pattern, fill.pattern_bytes, range.size());
}

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
  TraceAttribution traced;
  traced.task = id;
  // The parts of label(id), put together only when the trace is read.
  traced.number = state.run->number == 0 ? id : state.in_graph;
  traced.graph_run = state.run->number;
  traced.name = state.task->options.name;
  traced.kind = state.task->kind_name();
  traced.run_submitted = state.run->submitted;
  for_each_dependency(state, [&](std::uint64_t before) { traced.after.push_back(before); });
  traced.flops = state.task->options.flops;
  traced.bytes = state.task->options.bytes;
  return traced;
}

const ResolvedKernel& ExecutorState::resolve(std::uint64_t id, const KernelWork& kernel, std::size_t d) {
  // A first use on this device compiles (or reads the compile cache):
  // traced, so that the wait is not taken for launch cost.
  const bool first = recorder && !kernels.prepared(kernel, d);
  const auto preparing = first ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  const ResolvedKernel& resolved = kernels.resolve(kernel, *devices[d], d);
  if (first) {
    recorder->compile(attribution(id), kernel.kernel_name, devices[d]->label(), preparing,
                      std::chrono::steady_clock::now());
  }
  return resolved;
}

std::size_t ExecutorState::place(std::uint64_t id, SchedulingPolicy policy) {
  const Task& work = *task(id).task;
  // Placement may ask for a tuned kernel's time on each device, which
  // resolves it there: that compile is this task's.
  placing = id;
  return placement.choose(work, policy, [&](std::size_t device) {
    DeviceLoad load;
    load.in_flight = lanes[device].in_flight();
    if (policy == SchedulingPolicy::earliest_finish_time) {
      for (const Access& access : work.accesses) load.missing_bytes += coherence.missing_bytes(access, device);
    }
    return load;
  });
}

bool ExecutorState::dependencies_complete(const TaskState& state) const {
  bool complete = true;
  for_each_dependency(state, [&](std::uint64_t before) {
    const std::shared_ptr<Event>& event = task(before).event;
    complete = complete && (!event || event->is_complete());
  });
  return complete;
}

ExecutorState::Producers ExecutorState::producers_of(const TaskState& state, const Queue& queue) const {
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
  if (!state.device) state.device = place(id, policy);
  const std::size_t d = *state.device;
  // Kernels are resolved first: their configuration on this device says
  // which layouts, and so which views, the task needs.
  const ResolvedKernel* resolved = nullptr;
  std::vector<LayoutViews::Use> views;
  if (const KernelWork* kernel = work.kernel()) {
    resolved = &resolve(id, *kernel, d);
    if (const auto* tuned = std::get_if<TunedKernelCall>(&kernel->program); tuned && !tuned->layouts.empty()) {
      // Whether the inputs have settled matters only where the profile stages.
      const bool inputs_settled = !resolved->tuned->choice.staged_on_host.empty() && dependencies_complete(state);
      views = layouts.plan(work, *tuned, kernel->key, *resolved->tuned, d, inputs_settled);
    }
  }
  const auto name = [&] { return label(id); };
  const bool resident = views.empty() ? residency.make_resident(work.accesses, d, name, id)
                                      : residency.make_resident(LayoutViews::with_views(work.accesses, views), d, name, id);
  if (!resident) {
    // Placed already: it starts on this device once evicted memory is freed.
    waiting_for_memory[d].push_back(id);
    ++handed_off;
    return false;
  }
  if (residency.take_reservation_ended(d)) {
    // The replicas the first waiter kept may now be evicted for the others.
    const std::vector<std::uint64_t> waiting = std::exchange(waiting_for_memory[d], {});
    for (std::uint64_t other : waiting) make_ready(other);
    handed_off -= waiting.size();
  }
  // Nsight Systems and rocprof show the task's commands under its name.
  const ProfilerRange range([&] { return label(id); });
  std::optional<TraceRecorder::Scope> traced;
  if (recorder) {
    TraceAttribution facts = attribution(id);
    facts.policy = policy_name(work, policy);
    facts.predicted_seconds = placement.estimate(work, d);
    if (resolved && resolved->tuned) {
      facts.configuration = resolved->tuned->described;
      facts.profile_match = to_string(resolved->tuned->choice.match).data();  // a literal
    }
    traced.emplace(recorder.get(), std::move(facts));
  }
  DeviceLanes& lane = lanes[d];
  const Lane kind = lane_of(work);
  Queue& queue = kind == Lane::compute ? lane.next_compute()
                 : kind == Lane::copy_out ? lane.copy_out()
                                          : lane.copy_in();
  Producers producers = producers_of(state, queue);

  const bool times_transfers = placement.measures(policy);
  coherence.record_transfers(times_transfers);
  lane.copy_in().set_timing(times_transfers);
  std::vector<DeviceBuffer*> memories;
  for (std::size_t i = 0; i < work.accesses.size(); ++i) {
    const Access& access = work.accesses[i];
    buffers.insert(access.slice.storage);
    const auto view = std::find_if(views.begin(), views.end(), [&](const LayoutViews::Use& use) { return use.access == i; });
    memories.push_back(access.slice.storage->host_resident() ? nullptr
                       : view != views.end() ? &layouts.prepare(*view, work, d, producers.all, producers.waits)
                                             : &coherence.prepare_on_device(access, d, producers.all, producers.waits));
  }
  std::vector<TimedTransfer> transfers = coherence.take_transfers();
  wait_on(queue, std::move(producers.waits));

  const bool times_kernel = placement.samples_kernel(work, policy, d);
  const bool times_upload = times_transfers && copies_from_home(work);
  queue.set_timing(times_kernel || times_upload || state.run->timed);
  for (const LayoutViews::Use& view : views) layouts.convert_in(view, work, d, queue);
  std::shared_ptr<LaunchCapture::Pending> captured;
  if (resolved && resolved->tuned) {
    captured = capture.begin(work, std::get<TunedKernelCall>(work.kernel()->program), *resolved->tuned,
                             *devices[d], memories, views, queue);
  }
  if (traced) traced->own_command_next();
  const std::shared_ptr<Event> command = enqueue(work, queue, resolved, memories);
  record_uses(coherence, work, d, queue, command, views);
  // The task is done when its last command is, on this in-order queue: the
  // last conversion back, if any, after the capture's reads.
  std::shared_ptr<Event> done = command;
  if (captured) {
    if (std::shared_ptr<Event> read = capture.end(*captured, queue)) done = std::move(read);
  }
  for (const LayoutViews::Use& view : views) {
    if (std::shared_ptr<Event> last = layouts.convert_out(view, work, d, queue, command); last != command) {
      done = std::move(last);
    }
  }
  if (captured) {
    // Handed in before the run's own watch: the file is there when the run
    // is done (synchronize, which waits only for the bytes, may return first).
    completions.watch({done}, [captured](std::exception_ptr failure) {
      if (!failure) LaunchCapture::write(*captured);
    });
  }
  if (times_upload) transfers.push_back({d, work.accesses[0].slice.range.size(), done});
  state.event = done;
  state.queue = &queue;
  state.run->device_commands.emplace_back(id, done);
  if (state.run->timed) state.run->timed_commands.push_back({id, d, kind, command});
  state.run->count_device_task(d);
  ++task_counts[d];
  // Only placement by load asks what is in flight; skip the bookkeeping
  // until a task placed that way comes.
  tracks_load = tracks_load || policy != SchedulingPolicy::round_robin;
  if (tracks_load) lane.track(done);
  if (times_kernel || !transfers.empty()) {
    placement.measure(work, d, times_kernel ? command : nullptr, std::move(transfers));
  }
  return true;
}

void ExecutorState::retire_evicted() {
  for (Residency::Retirement& evicted : residency.take_retirements()) {
    auto retirement = std::make_shared<Residency::Retirement>(std::move(evicted));
    std::vector<std::shared_ptr<Event>> events = retirement->events;
    completions.watch(std::move(events), [this, retirement](std::exception_ptr) {
      // Freeing may synchronize with the device (cuMemFree does): not under the lock.
      retirement->memory.reset();
      retirement->events.clear();
      std::lock_guard lock(mutex);
      residency.freed(*retirement);
      retry_waiting_for_memory(retirement->device);
    });
  }
}

void ExecutorState::retry_waiting_for_memory(std::size_t device) {
  const std::vector<std::uint64_t> waiting = std::exchange(waiting_for_memory[device], {});
  for (std::uint64_t id : waiting) make_ready(id);
  handed_off -= waiting.size();
  drain();
  if (handed_off == 0) settled.notify_all();
}

}  // namespace alloy::detail
