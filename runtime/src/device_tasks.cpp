// Starting a device task: placement, device memory, inputs, the command.
#include <algorithm>

#include "executor_state.hpp"

namespace alloy::detail {
namespace {

void wait_on(Queue& queue, Coherence::Events waits) {
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  for (const auto& event : waits) {
    if (!event->is_complete()) queue.wait_for(*event);
  }
}

std::shared_ptr<Event> enqueue(const Task& task, Queue& queue, KernelResolver& kernels, Device& device,
                               std::size_t device_index, const std::vector<DeviceBuffer*>& memories) {
  if (const KernelWork* kernel = task.kernel()) {
    const KernelResolver::Resolved resolved = kernels.resolve(*kernel, device, device_index);
    std::vector<KernelArg> args;
    args.reserve(kernel->args.size());
    for (const TaskArgument& arg : kernel->args) {
      args.push_back(std::holds_alternative<std::size_t>(arg)
                         ? KernelArg::from(*memories[std::get<std::size_t>(arg)])
                         : std::get<KernelArg>(arg));
    }
    return queue.launch(resolved.kernel, resolved.range, std::span<const KernelArg>(args));
  }
  if (std::holds_alternative<CopyWork>(task.work)) {
    const ByteRange from = task.accesses[0].slice.range;
    const ByteRange to = task.accesses[1].slice.range;
    return queue.copy(*memories[0], from.begin, *memories[1], to.begin, from.size());
  }
  const auto& fill = std::get<FillWork>(task.work);
  const ByteRange range = task.accesses[0].slice.range;
  return queue.fill(*memories[0], range.begin, &fill.pattern, fill.pattern_bytes, range.size());
}

}  // namespace

std::size_t ExecutorState::place(const TaskState& state, SchedulingPolicy policy) {
  const Task& work = *state.task;
  return placement.choose(work, policy, [&](std::size_t device) {
    DeviceLoad load;
    load.in_flight = lanes[device].in_flight();
    if (policy == SchedulingPolicy::earliest_finish_time) {
      for (const Access& access : work.accesses) load.missing_bytes += coherence.missing_bytes(access, device);
    }
    return load;
  });
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
  if (!state.device) state.device = place(state, policy);
  const std::size_t d = *state.device;
  if (!residency.make_resident(work.accesses, d, [&] { return label(id); })) {
    // Placed already: it starts on this device once evicted memory is freed.
    waiting_for_memory[d].push_back(id);
    ++handed_off;
    return false;
  }
  DeviceLanes& lane = lanes[d];
  Queue& queue = work.kernel() ? lane.next_compute() : lane.copy_in();
  Producers producers = producers_of(state, queue);

  const bool times_transfers = placement.measures(policy);
  coherence.record_transfers(times_transfers);
  lane.copy_in().set_timing(times_transfers);
  std::vector<DeviceBuffer*> memories;
  for (const Access& access : work.accesses) {
    buffers.insert(access.slice.storage);
    memories.push_back(&coherence.prepare_on_device(access, d, producers.all, producers.waits));
  }
  std::vector<TimedTransfer> transfers = coherence.take_transfers();
  wait_on(queue, std::move(producers.waits));

  const bool times_kernel = placement.samples_kernel(work, policy, d);
  queue.set_timing(times_kernel);
  std::shared_ptr<Event> done = enqueue(work, queue, kernels, *devices[d], d, memories);
  for (const Access& access : work.accesses) coherence.used_on_device(access, d, queue, done);
  state.event = done;
  state.queue = &queue;
  state.run->device_commands.emplace_back(id, done);
  state.run->count_device_task(d);
  ++task_counts[d];
  // Only placement by load asks what is in flight; skip the bookkeeping
  // until a task placed that way comes.
  tracks_load = tracks_load || policy != SchedulingPolicy::round_robin;
  if (tracks_load) lane.track(done);
  if (times_kernel || !transfers.empty()) {
    placement.measure(work, d, times_kernel ? done : nullptr, std::move(transfers));
  }
  return true;
}

void ExecutorState::retire_evicted() {
  for (Residency::Retirement& evicted : residency.take_retirements()) {
    auto retirement = std::make_shared<Residency::Retirement>(std::move(evicted));
    std::vector<std::shared_ptr<Event>> events = retirement->events;
    watcher.watch(std::move(events), [this, retirement](std::exception_ptr) {
      // Freeing may synchronize with the device (cuMemFree does): not under the lock.
      retirement->memory.reset();
      retirement->events.clear();
      std::lock_guard lock(mutex);
      residency.freed(*retirement);
      const std::vector<std::uint64_t> waiting = std::exchange(waiting_for_memory[retirement->device], {});
      for (std::uint64_t id : waiting) make_ready(id);
      handed_off -= waiting.size();
      drain();
      if (handed_off == 0) settled.notify_all();
    });
  }
}

}  // namespace alloy::detail
