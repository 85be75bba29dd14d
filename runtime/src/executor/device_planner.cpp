// Planning a device task, and the commands that bring its bytes where it runs.
#include "device_planner.hpp"

#include <algorithm>

#include "alloy/error.hpp"
#include "alloy/log.hpp"

#include "tracing/trace_recorder.hpp"

namespace alloy::detail {
namespace {

std::size_t memory_limit(const ExecutorOptions& options) {
  if (options.device_memory_limit != 0) return options.device_memory_limit;
  return device_memory_limit_from_environment().value_or(0);
}

/// The options' memory share on each device, in bytes; 0: none.
std::vector<std::size_t> shares_of(const ExecutorOptions& options, const std::vector<Device*>& devices) {
  std::vector<std::size_t> shares;
  for (const Device* device : devices) {
    shares.push_back(options.memory_share ? std::max<std::size_t>(1, options.memory_share->on(
                                                                          device->info().global_memory_bytes))
                                          : 0);
  }
  return shares;
}

/// What replicas may take on each device: the smaller of the limit and the
/// share, where either is set.
std::vector<std::size_t> replica_limits(std::size_t limit, const std::vector<std::size_t>& shares) {
  std::vector<std::size_t> limits;
  for (std::size_t share : shares) {
    limits.push_back(limit == 0 ? share : share == 0 ? limit : std::min(limit, share));
  }
  return limits;
}

/// A copy into borrowed host memory.
bool copies_home(const Task& task) {
  return std::holds_alternative<CopyWork>(task.work) && task.accesses[1].slice.storage->host_resident();
}

/// A copy out of borrowed host memory: a host-to-device transfer.
bool copies_from_home(const Task& task) {
  return std::holds_alternative<CopyWork>(task.work) && task.accesses[0].slice.storage->host_resident();
}

void wait_on(Queue& queue, Coherence::Events waits) {
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  for (const auto& event : waits) {
    if (!event->is_complete()) queue.wait_for(*event);
  }
}

const LayoutViews::Use* view_of(const DevicePlan& plan, std::size_t access) {
  const auto view = std::find_if(plan.views.begin(), plan.views.end(),
                                 [&](const LayoutViews::Use& use) { return use.access == access; });
  return view == plan.views.end() ? nullptr : &*view;
}

/// The task's own command (a sliced launch: its slices, returning the last), on its memories.
std::shared_ptr<Event> own_command(const DevicePlan& plan, Queue& queue) {
  const Task& task = *plan.task;
  const std::vector<DeviceBuffer*>& memories = plan.memories;
  if (const KernelWork* kernel = task.kernel()) {
    std::vector<KernelArg> args;
    args.reserve(kernel->args.size());
    for (const TaskArgument& arg : kernel->args) {
      args.push_back(std::holds_alternative<std::size_t>(arg)
                         ? KernelArg::from(*memories[std::get<std::size_t>(arg)])
                         : std::get<KernelArg>(arg));
    }
    const LaunchRange& range = plan.resolved->range(*kernel);
    if (!plan.slicing.sliced()) {
      TraceRecorder::next_command_is_the_tasks_own();
      return queue.launch(*plan.resolved->kernel, range, std::span<const KernelArg>(args));
    }
    // In order on one queue: other queues' kernels may start between slices.
    std::shared_ptr<Event> last;
    for (std::size_t i = 0; i < plan.slicing.count; ++i) {
      TraceRecorder::next_command_is_the_tasks_own({i + 1, plan.slicing.count});
      last = queue.launch(*plan.resolved->kernel, plan.slicing.slice(range, i), std::span<const KernelArg>(args));
    }
    return last;
  }
  TraceRecorder::next_command_is_the_tasks_own();
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

}  // namespace

DevicePlanner::DevicePlanner(Runtime& runtime, const std::vector<Device*>& devices, std::vector<DeviceLanes>& lanes,
                             const ExecutorOptions& options)
    : devices_(devices),
      lanes_(lanes),
      shares_(shares_of(options, devices)),
      coherence_(devices, lanes),
      residency_(devices, replica_limits(memory_limit(options), shares_), coherence_),
      kernels_(runtime),
      layouts_(runtime, devices, coherence_),
      capture_(options.capture, options.capture_directory, 0) {}

Lane DevicePlanner::lane_of(const Task& task) {
  if (task.kernel()) return Lane::compute;
  return copies_home(task) ? Lane::copy_out : Lane::copy_in;
}

const ResolvedKernel& DevicePlanner::resolve(const KernelWork& kernel, std::size_t device) {
  // A first use on this device compiles (or reads the compile cache): told,
  // so that a trace does not take the wait for launch cost.
  if (!compiled_ || kernels_.prepared(kernel, device)) return kernels_.resolve(kernel, *devices_[device], device);
  const auto started = std::chrono::steady_clock::now();
  const ResolvedKernel& resolved = kernels_.resolve(kernel, *devices_[device], device);
  compiled_(kernel.kernel_name, device, started, std::chrono::steady_clock::now());
  return resolved;
}

std::size_t DevicePlanner::missing_bytes(const Task& task, std::size_t device) const {
  std::size_t missing = 0;
  for (const Access& access : task.accesses) missing += coherence_.missing_bytes(access, device);
  return missing;
}

std::optional<DevicePlan> DevicePlanner::plan(const Task& task, std::size_t device,
                                              const std::function<bool()>& inputs_settled,
                                              const std::function<std::string()>& name, std::uint64_t id) {
  track(task.accesses);
  DevicePlan plan;
  plan.task = &task;
  plan.device = device;
  // Kernels are resolved first: their configuration on this device says
  // which layouts, and so which views, the task needs.
  if (const KernelWork* kernel = task.kernel()) {
    plan.resolved = &resolve(*kernel, device);
    if (const auto* tuned = std::get_if<TunedKernelCall>(&kernel->program); tuned && !tuned->layouts.empty()) {
      // Whether the inputs have settled matters only where the profile stages.
      const bool settled = !plan.resolved->tuned->choice.staged_on_host.empty() && inputs_settled();
      plan.views = layouts_.plan(task, *tuned, kernel->key, *plan.resolved->tuned, device, settled);
    }
  }
  const bool resident = plan.views.empty()
                            ? residency_.make_resident(task.accesses, device, name, id)
                            : residency_.make_resident(LayoutViews::with_views(task.accesses, plan.views), device,
                                                       name, id);
  if (!resident) return std::nullopt;
  return plan;
}

void DevicePlanner::enqueue(DevicePlan& plan, Queue& queue, Producers producers, Timing timing) {
  const Task& task = *plan.task;
  const std::size_t d = plan.device;
  plan.timing = timing;
  coherence_.record_transfers(timing.transfers);
  lanes_[d].copy_in().set_timing(timing.transfers);
  plan.memories.reserve(task.accesses.size());
  for (std::size_t i = 0; i < task.accesses.size(); ++i) {
    const Access& access = task.accesses[i];
    const LayoutViews::Use* view = view_of(plan, i);
    plan.memories.push_back(access.slice.storage->host_resident() ? nullptr
                            : view != nullptr ? &layouts_.prepare(*view, task, d, producers.all, producers.waits)
                                              : &coherence_.prepare_on_device(access, d, producers.all, producers.waits));
  }
  plan.transfers = coherence_.take_transfers();
  wait_on(queue, std::move(producers.waits));

  queue.set_timing(timing.command || (timing.transfers && copies_from_home(task)));
  for (const LayoutViews::Use& view : plan.views) layouts_.convert_in(view, task, d, queue);
  if (plan.resolved && plan.resolved->tuned) {
    plan.captured = capture_.begin(task, std::get<TunedKernelCall>(task.kernel()->program), *plan.resolved->tuned,
                                   *devices_[d], plan.memories, plan.views, queue);
  }
  plan.command = own_command(plan, queue);
}

std::shared_ptr<Event> DevicePlanner::commit(DevicePlan& plan, Queue& queue) {
  const Task& task = *plan.task;
  const std::size_t d = plan.device;
  // What the command did to the task's buffers; layout arguments are LayoutViews'.
  for (std::size_t i = 0; i < task.accesses.size(); ++i) {
    const Access& access = task.accesses[i];
    if (view_of(plan, i) != nullptr) continue;
    if (!access.slice.storage->host_resident()) {
      coherence_.used_on_device(access, d, queue, plan.command);
    } else if (writes(access.mode)) {
      coherence_.landed_on_host(access, plan.command);
    }
  }
  // The task is done when its last command is, on this in-order queue: the
  // last conversion back, if any, after the capture's reads.
  std::shared_ptr<Event> done = plan.command;
  if (plan.captured) {
    if (std::shared_ptr<Event> read = capture_.end(*plan.captured, queue)) done = std::move(read);
  }
  for (const LayoutViews::Use& view : plan.views) {
    if (std::shared_ptr<Event> last = layouts_.convert_out(view, task, d, queue, plan.command); last != plan.command) {
      done = std::move(last);
    }
  }
  // An upload from borrowed memory is itself a transfer placement learns from.
  if (plan.timing.transfers && copies_from_home(task)) {
    plan.transfers.push_back({d, task.accesses[0].slice.range.size(), done});
  }
  return done;
}

DeviceBuffer& DevicePlanner::begin_host_write(const Access& access, std::size_t device,
                                              const Coherence::Events& producers, Coherence::Events& waits) {
  DeviceBuffer& memory = coherence_.prepare_on_device(access, device, producers, waits);
  coherence_.written_on_device(access, device);
  state_of(*access.slice.storage).add_host_writer(devices_[device]);
  return memory;
}

bool DevicePlanner::end_host_write(BufferStorage& storage, std::size_t device) {
  return state_of(storage).remove_host_writer(devices_[device]);
}

void DevicePlanner::prepare_on_host(const std::vector<Access>& accesses, const Coherence::Events& producers,
                                    Coherence::Events& waits) {
  track(accesses);
  for (const Access& access : accesses) coherence_.prepare_on_host(access, producers, waits);
  for (const Access& access : accesses) {
    if (writes(access.mode)) coherence_.written_on_host(access);
  }
}

void DevicePlanner::track(const std::vector<Access>& accesses) {
  for (const Access& access : accesses) buffers_.insert(access.slice.storage);
}

void DevicePlanner::forget_dropped_buffers() {
  for (auto it = buffers_.begin(); it != buffers_.end();) {
    if (it->use_count() > 1) {
      ++it;
      continue;
    }
    try {
      end_of_life(**it, false);
    } catch (const Error& error) {
      log_warning(std::string("executor could not free a dropped buffer's replicas: ") + error.what());
    }
    it = buffers_.erase(it);
  }
}

void DevicePlanner::bring_buffers_home() {
  // The device replicas this executor made are released with its devices' queues.
  try {
    for (const auto& storage : buffers_) end_of_life(*storage, true);
  } catch (const std::exception& error) {
    log_warning(std::string("executor could not bring buffers back to host memory: ") + error.what());
  }
}

void DevicePlanner::end_of_life(BufferStorage& storage, bool bring_home) {
  if (bring_home) coherence_.bring_home(storage);
  layouts_.forget(storage, [&](BufferStorage& view) { residency_.forget(view); });
  residency_.forget(storage);
}

}  // namespace alloy::detail
