// Recording a traced executor's commands and host tasks, and moving device
// timestamps onto the host's clock.
#include "trace_recorder.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "alloy/run.hpp"

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

thread_local TraceRecorder::Scope* current_scope = nullptr;

TraceKind kind_of(SubmittedCommand::Type type) {
  switch (type) {
    case SubmittedCommand::Type::write: return TraceKind::copy_in;
    case SubmittedCommand::Type::read: return TraceKind::copy_out;
    case SubmittedCommand::Type::copy: return TraceKind::copy;
    case SubmittedCommand::Type::fill: return TraceKind::fill;
    case SubmittedCommand::Type::launch: return TraceKind::kernel;
  }
  return TraceKind::kernel;
}

std::uint64_t work_groups(const LaunchRange& range) {
  if (!range.local) return 0;
  std::uint64_t groups = 1;
  for (unsigned d = 0; d < range.global.dimensions; ++d) groups *= range.global[d] / (*range.local)[d];
  return groups;
}

/// A command the executor submitted for a task, other than the task's own.
std::string role(const TraceSlice& slice, const std::string& task) {
  if (slice.kind == TraceKind::kernel) return slice.kernel + " for " + task;
  return std::string(to_string(slice.kind)) + " for " + task;
}

/// What the executor moves on its own: bytes brought home, replicas written back.
std::string unattributed(const TraceSlice& slice) {
  if (slice.kind == TraceKind::copy_out) return "write-back";
  if (slice.kind == TraceKind::kernel) return slice.kernel;
  return std::string(to_string(slice.kind));
}

}  // namespace

class TraceRecorder::LaneObserver : public QueueObserver {
 public:
  LaneObserver(TraceRecorder& recorder, std::size_t device, const std::string& lane)
      : recorder_(recorder), device_(device), lane_(lane) {}
  void submitted(const Queue&, const SubmittedCommand& command) override {
    recorder_.submitted(device_, lane_, command);
  }

 private:
  TraceRecorder& recorder_;
  std::size_t device_;
  const std::string& lane_;
};

TraceRecorder::TraceRecorder(const std::vector<Device*>& devices, unsigned compute_lanes) {
  for (Device* device : devices) {
    TraceDevice traced{device->label(), device->info().compute_units, device->info().copy_engines, {}};
    for (unsigned lane = 0; lane < compute_lanes; ++lane) traced.lanes.push_back("compute " + std::to_string(lane));
    traced.lanes.push_back(std::string(lane_name(Lane::copy_in)));
    traced.lanes.push_back(std::string(lane_name(Lane::copy_out)));
    devices_.push_back(std::move(traced));
  }
}

TraceRecorder::~TraceRecorder() = default;

void TraceRecorder::observe(std::size_t device, DeviceLanes& lanes) {
  const std::vector<std::string>& names = devices_.at(device).lanes;
  const std::size_t compute = names.size() - 2;
  auto watch = [&](Queue& queue, const std::string& name) {
    observers_.push_back(std::make_unique<LaneObserver>(*this, device, name));
    queue.observe(observers_.back().get());
  };
  for (std::size_t lane = 0; lane < compute; ++lane) watch(lanes.compute(lane), names[lane]);
  watch(lanes.copy_in(), names[compute]);
  watch(lanes.copy_out(), names[compute + 1]);
}

TraceRecorder::Scope::Scope(TraceRecorder* recorder, TraceAttribution attribution)
    : recorder_(recorder), attribution_(std::move(attribution)), outer_(current_scope) {
  if (recorder_ != nullptr) current_scope = this;
}

TraceRecorder::Scope::~Scope() {
  if (recorder_ != nullptr) current_scope = outer_;
}

std::uint64_t TraceRecorder::since_start(std::chrono::steady_clock::time_point time) const {
  return time <= origin_ ? 0 : static_cast<std::uint64_t>((time - origin_).count());
}

void TraceRecorder::submitted(std::size_t device, const std::string& lane, const SubmittedCommand& command) {
  Command recorded{device, &lane, {}, since_start(command.enqueued), command.event, {}, false};
  TraceSlice& slice = recorded.slice;
  slice.kind = kind_of(command.type);
  slice.device = device;
  slice.bytes = command.bytes;
  if (command.kernel != nullptr) {
    slice.kernel = command.kernel->name();
    slice.profile_match = "fixed";
    slice.global_size = command.range->global.to_string();
    slice.local_size = command.range->local ? command.range->local->to_string() : "";
    slice.work_groups = work_groups(*command.range);
  }
  Scope* scope = current_scope != nullptr && current_scope->recorder_ == this ? current_scope : nullptr;
  if (scope == nullptr) {
    slice.name = unattributed(slice);
    slice.run_submitted_ns = recorded.enqueued_ns;
  } else {
    const TraceAttribution& task = scope->attribution_;
    slice.task = task.task;
    slice.run_submitted_ns = since_start(task.run_submitted);
    if (std::exchange(scope->own_next_, false)) {
      slice.name = task.name;
      slice.after = task.after;
      slice.policy = task.policy;
      if (task.predicted_seconds) slice.predicted_ns = static_cast<std::uint64_t>(*task.predicted_seconds * 1e9);
      if (command.kernel != nullptr) {
        slice.configuration = task.configuration;
        if (!task.profile_match.empty()) slice.profile_match = task.profile_match;  // else "fixed"
        slice.flops = task.flops;
        slice.bytes = task.bytes;
      }
    } else {
      slice.name = role(slice, task.name);
    }
  }
  std::lock_guard lock(mutex_);
  slice.id = next_id_++;
  commands_.push_back(std::move(recorded));
}

std::string TraceRecorder::host_lane() {
  const auto [lane, added] = host_lanes_.try_emplace(std::this_thread::get_id(), "");
  if (added) lane->second = "host worker " + std::to_string(host_lanes_.size() - 1);
  return lane->second;
}

void TraceRecorder::host_task(TraceAttribution attribution, std::chrono::steady_clock::time_point ready,
                              std::chrono::steady_clock::time_point started,
                              std::chrono::steady_clock::time_point ended) {
  TraceSlice slice;
  slice.task = attribution.task;
  slice.name = std::move(attribution.name);
  slice.kind = TraceKind::host;
  slice.start_ns = since_start(started);
  slice.end_ns = std::max(slice.start_ns, since_start(ended));
  slice.enqueued_ns = since_start(ready);
  slice.run_submitted_ns = since_start(attribution.run_submitted);
  slice.after = std::move(attribution.after);
  std::lock_guard lock(mutex_);
  slice.id = next_id_++;
  slice.lane = host_lane();
  host_slices_.push_back(std::move(slice));
}

Trace TraceRecorder::trace() {
  std::lock_guard reading(reading_);
  std::vector<Command*> untimed;
  {
    std::lock_guard lock(mutex_);
    for (Command& command : commands_) {
      if (!command.timed && command.event) untimed.push_back(&command);
    }
  }
  // Outside the lock: reading a timestamp waits for its command.
  for (Command* command : untimed) {
    try {
      command->timing = command->event->timing();
      command->timed = true;
    } catch (const Error&) {
      // A failed command has no times; its task's failure is reported by wait().
    }
    command->event.reset();
  }
  std::lock_guard lock(mutex_);
  // A device's clock sits at least `enqueued - queued` behind the host's for
  // every command (it was queued after the host called), so the largest of
  // those is the closest bound: it puts every command after its submission.
  std::vector<std::int64_t> offsets(devices_.size(), std::numeric_limits<std::int64_t>::min());
  for (const Command& command : commands_) {
    if (!command.timed) continue;
    const std::uint64_t queued = command.timing.queued_ns != 0 ? command.timing.queued_ns : command.timing.started_ns;
    offsets[command.device] = std::max(offsets[command.device], static_cast<std::int64_t>(command.enqueued_ns) -
                                                                    static_cast<std::int64_t>(queued));
  }
  Trace trace;
  trace.devices = devices_;
  for (const Command& command : commands_) {
    if (!command.timed) continue;
    TraceSlice slice = command.slice;
    const std::int64_t offset = offsets[command.device];
    slice.lane = *command.lane;
    slice.enqueued_ns = command.enqueued_ns;
    slice.start_ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(command.timing.started_ns) + offset);
    slice.end_ns = static_cast<std::uint64_t>(
        static_cast<std::int64_t>(std::max(command.timing.ended_ns, command.timing.started_ns)) + offset);
    trace.slices.push_back(std::move(slice));
  }
  trace.slices.insert(trace.slices.end(), host_slices_.begin(), host_slices_.end());
  std::stable_sort(trace.slices.begin(), trace.slices.end(),
                   [](const TraceSlice& a, const TraceSlice& b) { return a.start_ns < b.start_ns; });
  return trace;
}

}  // namespace alloy::detail
