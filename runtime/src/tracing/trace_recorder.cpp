// Recording a traced executor's commands and host tasks, and moving device
// timestamps onto the host's clock.
#include "trace_recorder.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <utility>

#include "alloy/run.hpp"

#include "alloy/error.hpp"
#include "graph/task.hpp"

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

/// Commands whose events are kept before the oldest are read and let go:
/// by then those have long completed, so reading them rarely waits.
constexpr std::size_t most_events_kept = 2048;
/// Past that, how many commands go by between harvests: each asks the
/// backend about an event its own threads may be updating that moment (a
/// lock both take), so not on every command.
constexpr std::size_t commands_between_harvests = 256;

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

void TraceRecorder::read_timing(Command& command) {
  static_assert(sizeof(Command) <= 64, "a trace keeps one Command per device command");
  static_assert(sizeof(HostTask) <= 32, "a trace keeps one HostTask per host task");
  const std::shared_ptr<Event> event = std::move(std::get<std::shared_ptr<Event>>(command.state));
  try {
    command.state = event->timing();
  } catch (const Error&) {
    // A failed command has no times; its task's failure is reported by wait().
    command.state = std::monostate{};
  }
}

class TraceRecorder::LaneObserver : public QueueObserver {
 public:
  LaneObserver(TraceRecorder& recorder, std::uint32_t device, std::uint32_t lane)
      : recorder_(recorder), device_(device), lane_(lane) {}
  void submitted(const Queue&, const SubmittedCommand& command) override {
    recorder_.submitted(device_, lane_, command, last_shape_);
  }

 private:
  TraceRecorder& recorder_;
  std::uint32_t device_;
  std::uint32_t lane_;
  const CommandShape* last_shape_ = nullptr;  ///< under the recorder's mutex_
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
  const auto compute = static_cast<std::uint32_t>(devices_.at(device).lanes.size() - 2);
  auto watch = [&](Queue& queue, std::uint32_t lane) {
    observers_.push_back(std::make_unique<LaneObserver>(*this, static_cast<std::uint32_t>(device), lane));
    queue.observe(observers_.back().get());
  };
  for (std::uint32_t lane = 0; lane < compute; ++lane) watch(lanes.compute(lane), lane);
  watch(lanes.copy_in(), compute);
  watch(lanes.copy_out(), compute + 1);
}

TraceRecorder::Scope::Scope(TraceRecorder* recorder, TraceAttribution task)
    : recorder_(recorder), task_(task), outer_(current_scope) {
  if (recorder_ != nullptr) current_scope = this;
}

TraceRecorder::Scope::~Scope() {
  if (recorder_ != nullptr) current_scope = outer_;
}

void TraceRecorder::next_command_is_the_tasks_own(SliceOfLaunch slice) {
  if (current_scope == nullptr) return;
  current_scope->own_next_ = true;
  current_scope->own_slice_ = slice;
}

void TraceRecorder::compile_for_current_task(const std::string& kernel, const std::string& device,
                                             std::chrono::steady_clock::time_point started,
                                             std::chrono::steady_clock::time_point ended) {
  if (current_scope == nullptr || current_scope->recorder_ != this) return;
  const TraceAttribution& task = current_scope->task_;
  std::lock_guard lock(mutex_);
  if (!compile_lane_) {
    compile_lane_ = static_cast<std::uint32_t>(host_lanes_.size());
    host_lanes_.push_back("compile");
  }
  const std::uint64_t start = since_start(started);
  compiles_.push_back({start, since_start(ended), runs_[task.run].submitted_ns,
                       keep("compile '" + kernel + "' for " + device + " (for " + label(task) + ")")});
}

std::uint32_t TraceRecorder::run_submitted(const std::shared_ptr<const GraphData>& graph, std::uint64_t first,
                                           std::uint32_t number, std::chrono::steady_clock::time_point submitted) {
  std::lock_guard lock(mutex_);
  Run& run = runs_.emplace_back(Run{nullptr, {}, first, since_start(submitted), number, {}});
  if (number == 0 && graph->tasks.size() == 1) {
    run.only = task_facts(*graph, 0);
    run.tasks = &run.only;  // a ChunkedLog's elements never move
  } else {
    run.tasks = graph_facts(graph);
  }
  return static_cast<std::uint32_t>(runs_.size() - 1);
}

void TraceRecorder::follows_earlier(std::uint32_t run, std::span<const EarlierEdge> edges) {
  std::lock_guard lock(mutex_);
  auto* kept = static_cast<EarlierEdge*>(arena_.allocate(edges.size() * sizeof(EarlierEdge), alignof(EarlierEdge)));
  std::copy(edges.begin(), edges.end(), kept);
  runs_[run].earlier = {kept, edges.size()};
}

TraceRecorder::GraphTask TraceRecorder::task_facts(const GraphData& graph, std::size_t i) {
  const detail::Task& task = graph.tasks[i];
  const std::span<std::uint64_t> after = ids(graph.dependencies[i].size());
  std::transform(graph.dependencies[i].begin(), graph.dependencies[i].end(), after.begin(),
                 [](TaskId before) { return before.index; });
  return {keep_repeated(task.options.name, last_task_name_), task.kind_name(), after, task.options.flops,
          task.options.bytes};
}

std::string_view TraceRecorder::keep_repeated(std::string_view text, std::string_view& last) {
  if (text != last) last = keep(text);
  return last;
}

const TraceRecorder::GraphTask* TraceRecorder::graph_facts(const std::shared_ptr<const GraphData>& graph) {
  const bool same = !last_graph_.owner_before(graph) && !graph.owner_before(last_graph_);
  if (same && last_graph_facts_ != nullptr) return last_graph_facts_;
  const std::size_t count = graph->tasks.size();
  auto* facts = static_cast<GraphTask*>(arena_.allocate(std::max<std::size_t>(count, 1) * sizeof(GraphTask),
                                                        alignof(GraphTask)));
  for (std::size_t i = 0; i < count; ++i) new (&facts[i]) GraphTask(task_facts(*graph, i));
  last_graph_ = graph;
  last_graph_facts_ = facts;
  return facts;
}

const TraceRecorder::GraphTask& TraceRecorder::graph_task(const TraceAttribution& task) const {
  return runs_[task.run].tasks[task.in_graph];
}

std::uint64_t TraceRecorder::id(const TraceAttribution& task) const { return runs_[task.run].first + task.in_graph; }

std::string TraceRecorder::label(const TraceAttribution& task) const {
  const Run& run = runs_[task.run];
  const GraphTask& facts = run.tasks[task.in_graph];
  // As ExecutorState::label gives it: a one-task call by its id, a graph's
  // task by its index there.
  return task_label(run.number == 0 ? id(task) : task.in_graph, facts.name, facts.kind, run.number);
}

std::vector<std::uint64_t> TraceRecorder::after(const TraceAttribution& task) const {
  const Run& run = runs_[task.run];
  std::vector<std::uint64_t> ids;
  for (std::uint64_t before : run.tasks[task.in_graph].after) ids.push_back(run.first + before);
  const auto by_later_task = [](const EarlierEdge& a, const EarlierEdge& b) { return a.in_graph < b.in_graph; };
  const auto earlier =
      std::equal_range(run.earlier.begin(), run.earlier.end(), EarlierEdge{task.in_graph, 0}, by_later_task);
  for (auto edge = earlier.first; edge != earlier.second; ++edge) ids.push_back(edge->before);
  return ids;
}

std::string_view TraceRecorder::keep(std::string_view text) {
  if (text.empty()) return {};
  auto* kept = static_cast<char*>(arena_.allocate(text.size(), 1));
  std::copy(text.begin(), text.end(), kept);
  return {kept, text.size()};
}

std::span<std::uint64_t> TraceRecorder::ids(std::size_t count) {
  if (count == 0) return {};
  return {static_cast<std::uint64_t*>(arena_.allocate(count * sizeof(std::uint64_t), alignof(std::uint64_t))), count};
}

std::uint64_t TraceRecorder::since_start(std::chrono::steady_clock::time_point time) const {
  return time <= origin_ ? 0 : static_cast<std::uint64_t>((time - origin_).count());
}

template <class T>
T* TraceRecorder::kept_copy(const T& value) {
  return new (arena_.allocate(sizeof(T), alignof(T))) T(value);
}

const TraceDecisions* TraceRecorder::keep_repeated(const TraceDecisions& decided) {
  if (last_decisions_ == nullptr || !(*last_decisions_ == decided)) {
    TraceDecisions kept = decided;
    kept.configuration = keep_repeated(decided.configuration, last_configuration_);
    last_decisions_ = kept_copy(kept);
  }
  return last_decisions_;
}

const TraceRecorder::CommandShape* TraceRecorder::keep_repeated(const CommandShape& shape,
                                                                const CommandShape*& last) {
  const bool same = last != nullptr && last->type == shape.type && last->kernel == shape.kernel &&
                    last->range == shape.range && last->decided == shape.decided &&
                    last->slice_index == shape.slice_index && last->slice_count == shape.slice_count;
  if (!same) last = kept_copy(shape);
  return last;
}

void TraceRecorder::submitted(std::uint32_t device, std::uint32_t lane, const SubmittedCommand& command,
                              const CommandShape*& last_shape) {
  // Only copies here: names, sizes and the task's facts are put together
  // when the trace is read.
  CommandShape shape{device, lane, command.type, {}, {}, nullptr};
  if (command.range) shape.range = *command.range;
  Scope* scope = current_scope != nullptr && current_scope->recorder_ == this ? current_scope : nullptr;
  const bool own = scope != nullptr && std::exchange(scope->own_next_, false);
  const std::uint64_t enqueued = since_start(command.enqueued);
  std::lock_guard lock(mutex_);
  if (command.kernel != nullptr) shape.kernel = keep_repeated(command.kernel->name(), last_kernel_);
  if (own) {
    shape.decided = keep_repeated(scope->decisions_);
    shape.slice_index = static_cast<std::uint32_t>(scope->own_slice_.index);
    shape.slice_count = static_cast<std::uint32_t>(scope->own_slice_.count);
  }
  commands_.push_back({keep_repeated(shape, last_shape), scope != nullptr ? scope->task_ : TraceAttribution{},
                       enqueued, command.bytes, command.event});
  if (commands_.size() - harvested_ >= most_events_kept && commands_.size() >= next_harvest_) {
    harvest_completed();
    next_harvest_ = commands_.size() + commands_between_harvests;
  }
}

void TraceRecorder::harvest() {
  std::lock_guard lock(mutex_);
  harvest_completed();
}

void TraceRecorder::harvest_completed() {
  if (reading_now_) return;
  for (; harvested_ < commands_.size(); ++harvested_) {
    Command& command = commands_[harvested_];
    const auto* event = std::get_if<std::shared_ptr<Event>>(&command.state);
    if (event == nullptr) continue;
    if (!(*event)->is_complete()) return;  // the rest on a later harvest, or in trace()
    read_timing(command);
  }
}

std::uint32_t TraceRecorder::host_lane() {
  const auto [lane, added] = host_lane_of_.try_emplace(std::this_thread::get_id(), 0);
  if (added) {
    lane->second = static_cast<std::uint32_t>(host_lanes_.size());
    host_lanes_.push_back("host worker " + std::to_string(host_lanes_.size()));
  }
  return lane->second;
}

void TraceRecorder::host_task(TraceAttribution attribution, TraceClock::Ticks started, TraceClock::Ticks ended) {
  std::lock_guard lock(mutex_);
  clock_.anchor_if_due(ended);
  host_tasks_.push_back({attribution, started, ended, host_lane(), TraceKind::host});
}

void TraceRecorder::async_task(TraceAttribution attribution, TraceClock::Ticks started, TraceClock::Ticks ended) {
  std::lock_guard lock(mutex_);
  clock_.anchor_if_due(ended);
  // Operations are recorded as they end, so a track is free for this one
  // when its last operation ended before this one started.
  auto track = std::find_if(async_tracks_.begin(), async_tracks_.end(),
                            [&](const auto& entry) { return entry.second <= started; });
  if (track == async_tracks_.end()) {
    async_tracks_.emplace_back(static_cast<std::uint32_t>(host_lanes_.size()), 0);
    host_lanes_.push_back("async " + std::to_string(async_tracks_.size() - 1));
    track = std::prev(async_tracks_.end());
  }
  track->second = std::max(track->second, ended);
  host_tasks_.push_back({attribution, started, ended, track->first, TraceKind::async});
}

void TraceRecorder::held_back(std::size_t device, TraceAttribution task, std::chrono::steady_clock::time_point started,
                              std::chrono::steady_clock::time_point ended, std::uint32_t bound_commands,
                              std::uint64_t bound_ns) {
  static constexpr const char* lane = "held back";
  std::lock_guard lock(mutex_);
  std::vector<std::string>& lanes = devices_.at(device).lanes;
  if (std::find(lanes.begin(), lanes.end(), lane) == lanes.end()) lanes.push_back(lane);
  held_back_.push_back(
      {task, since_start(started), since_start(ended), static_cast<std::uint32_t>(device), bound_commands, bound_ns});
}

TraceSlice TraceRecorder::slice_of(const Command& command, std::int64_t offset) const {
  const CommandShape& shape = *command.shape;
  const EventTiming& timing = std::get<EventTiming>(command.state);
  TraceSlice slice;
  slice.kind = kind_of(shape.type);
  slice.device = shape.device;
  slice.lane = devices_[shape.device].lanes[shape.lane];
  slice.bytes = command.bytes;
  slice.enqueued_ns = command.enqueued_ns;
  slice.start_ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(timing.started_ns) + offset);
  slice.end_ns = static_cast<std::uint64_t>(
      static_cast<std::int64_t>(std::max(timing.ended_ns, timing.started_ns)) + offset);
  if (shape.range) {
    slice.kernel = shape.kernel;
    slice.profile_match = "fixed";
    slice.global_size = shape.range->global.to_string();
    slice.local_size = shape.range->local ? shape.range->local->to_string() : "";
    slice.work_groups = work_groups(*shape.range);
  }
  const TraceAttribution& task = command.task;
  if (task.run == TraceAttribution::no_run) {
    slice.name = unattributed(slice);
    slice.run_submitted_ns = command.enqueued_ns;
    return slice;
  }
  slice.task = id(task);
  slice.run_submitted_ns = runs_[task.run].submitted_ns;
  if (shape.decided == nullptr) {
    slice.name = role(slice, label(task));
    return slice;
  }
  slice.name = label(task);
  if (shape.slice_count != 0) {
    slice.kernel_slice = shape.slice_index;
    slice.kernel_slices = shape.slice_count;
    slice.name += ", slice " + std::to_string(shape.slice_index) + " of " + std::to_string(shape.slice_count);
  }
  slice.after = after(task);
  const TraceDecisions& decided = *shape.decided;
  slice.policy = decided.policy;
  slice.others_in_flight = decided.others_in_flight;
  if (decided.predicted_seconds) slice.predicted_ns = static_cast<std::uint64_t>(*decided.predicted_seconds * 1e9);
  if (shape.range) {
    slice.configuration = decided.configuration;
    if (decided.profile_match != nullptr) slice.profile_match = decided.profile_match;
    // A slice does its share of what the task declares.
    const GraphTask& declared = graph_task(task);
    const std::uint32_t parts = std::max<std::uint32_t>(1, shape.slice_count);
    slice.flops = declared.flops / parts;
    slice.bytes = declared.bytes / parts;
  }
  return slice;
}

TraceSlice TraceRecorder::slice_of(const HostTask& host) const {
  const TraceAttribution& task = host.task;
  TraceSlice slice;
  slice.kind = host.kind;
  slice.lane = host_lanes_[host.lane];
  slice.start_ns = since_start(clock_.steady(host.started));
  slice.end_ns = std::max(slice.start_ns, since_start(clock_.steady(host.ended)));
  slice.enqueued_ns = slice.start_ns;
  slice.run_submitted_ns = runs_[task.run].submitted_ns;
  slice.task = id(task);
  slice.name = label(task);
  slice.after = after(task);
  return slice;
}

TraceSlice TraceRecorder::slice_of(const Compile& compile) const {
  // Not its task's own slice: the task's kernel launch is.
  TraceSlice slice;
  slice.kind = TraceKind::compile;
  slice.lane = host_lanes_[*compile_lane_];
  slice.start_ns = compile.started_ns;
  slice.end_ns = std::max(compile.started_ns, compile.ended_ns);
  slice.enqueued_ns = compile.started_ns;
  slice.run_submitted_ns = compile.run_submitted_ns;
  slice.name = compile.name;
  return slice;
}

TraceSlice TraceRecorder::slice_of(const HeldBack& held) const {
  TraceSlice slice;
  slice.kind = TraceKind::held_back;
  slice.device = held.device;
  slice.lane = "held back";
  slice.start_ns = held.started_ns;
  slice.end_ns = std::max(held.started_ns, held.ended_ns);
  slice.enqueued_ns = slice.start_ns;
  slice.run_submitted_ns = runs_[held.task.run].submitted_ns;
  slice.task = id(held.task);
  slice.name = label(held.task) + ", held back for critical work";
  slice.bound_commands = held.bound_commands;
  slice.bound_ns = held.bound_ns;
  return slice;
}

Trace TraceRecorder::trace() {
  std::lock_guard reading(reading_);
  std::vector<Command*> untimed;
  {
    std::lock_guard lock(mutex_);
    reading_now_ = true;
    commands_.for_each([&](Command& command) {
      if (std::holds_alternative<std::shared_ptr<Event>>(command.state)) untimed.push_back(&command);
    });
  }
  // Outside the lock: reading a timestamp waits for its command.
  for (Command* command : untimed) read_timing(*command);
  std::lock_guard lock(mutex_);
  reading_now_ = false;
  clock_.anchor();  // every host task recorded so far between two anchors
  // A device's clock sits at least `enqueued - queued` behind the host's for
  // every command (it was queued after the host called), so the largest of
  // those is the closest bound: it puts every command after its submission.
  std::vector<std::int64_t> offsets(devices_.size(), std::numeric_limits<std::int64_t>::min());
  commands_.for_each([&](const Command& command) {
    const auto* timing = std::get_if<EventTiming>(&command.state);
    if (timing == nullptr) return;
    const std::uint64_t queued = timing->queued_ns != 0 ? timing->queued_ns : timing->started_ns;
    std::int64_t& offset = offsets[command.shape->device];
    offset = std::max(offset, static_cast<std::int64_t>(command.enqueued_ns) - static_cast<std::int64_t>(queued));
  });
  Trace trace;
  trace.devices = devices_;
  // The system clock now, less how long ago the steady origin was.
  const auto since_origin = std::chrono::steady_clock::now() - origin_;
  const auto unix_now = std::chrono::system_clock::now().time_since_epoch();
  trace.origin_unix_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(unix_now - since_origin).count());
  trace.slices.reserve(commands_.size() + host_tasks_.size() + compiles_.size() + held_back_.size());
  commands_.for_each([&](const Command& command) {
    if (std::holds_alternative<EventTiming>(command.state)) {
      trace.slices.push_back(slice_of(command, offsets[command.shape->device]));
    }
  });
  host_tasks_.for_each([&](const HostTask& host) { trace.slices.push_back(slice_of(host)); });
  compiles_.for_each([&](const Compile& compile) { trace.slices.push_back(slice_of(compile)); });
  held_back_.for_each([&](const HeldBack& held) { trace.slices.push_back(slice_of(held)); });
  std::stable_sort(trace.slices.begin(), trace.slices.end(),
                   [](const TraceSlice& a, const TraceSlice& b) { return a.start_ns < b.start_ns; });
  std::uint64_t id = 1;
  for (TraceSlice& slice : trace.slices) slice.id = id++;
  return trace;
}

}  // namespace alloy::detail
