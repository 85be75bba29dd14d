// Building task graphs and inferring their edges from buffer accesses.
#include "alloy/graph.hpp"

#include <algorithm>
#include <iterator>

#include "alloy/dialect.hpp"
#include "alloy/error.hpp"
#include "dependency_tracker.hpp"

namespace alloy {

std::string Task::label(TaskId id) const {
  static constexpr const char* kinds[] = {"kernel", "copy", "fill", "host"};
  std::string text = "task " + std::to_string(id.index);
  if (!options.name.empty()) text += " '" + options.name + "'";
  return text + " (" + kinds[static_cast<int>(kind)] + ")";
}

Graph::Graph() : tracker_(std::make_unique<detail::DependencyTracker>()) {}
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

TaskId Graph::add(Task task) {
  const TaskId id{static_cast<std::uint32_t>(tasks_.size())};
  for (TaskId before : task.dependencies) {
    if (before.index >= id.index) {
      throw InvalidArgument(task.label(id) + " is ordered after task " +
                            std::to_string(before.index) + ", which does not exist yet");
    }
  }
  task.ordered_after = task.dependencies;
  tracker_->record_task(task, id);
  tasks_.push_back(std::move(task));
  return id;
}

TaskId Graph::kernel(ProgramSource source, std::string kernel_name, LaunchRange range,
                     std::vector<TaskArg> args, TaskOptions options) {
  Task task;
  task.kind = TaskKind::kernel;
  task.options = std::move(options);
  if (task.options.name.empty()) task.options.name = kernel_name;
  const SharedSource& shared = share(std::move(source));
  task.source = shared.source;
  task.kernel_name = std::move(kernel_name);
  task.kernel_key = stable_hash(std::to_string(shared.hash) + '\n' + task.kernel_name);
  task.range = range;
  add_arguments(task, std::move(args));
  return add(std::move(task));
}

TaskId Graph::kernel(const TunableKernel& tunable, Extent problem, std::vector<TaskArg> args,
                     TaskOptions options) {
  Task task;
  task.kind = TaskKind::kernel;
  task.options = std::move(options);
  if (task.options.name.empty()) task.options.name = tunable.name;
  // One shared copy per distinct description the graph uses, found by
  // content: two objects at one address over time may differ.
  tunable.validate();
  const std::string description = tunable.description_hash();
  auto found = std::find_if(tunables_.begin(), tunables_.end(),
                            [&](const auto& known) { return known.first == description; });
  if (found == tunables_.end()) {
    tunables_.emplace_back(description, std::make_shared<const TunableKernel>(tunable));
    found = std::prev(tunables_.end());
  }
  task.tunable = found->second;
  task.kernel_name = tunable.kernel_name;
  task.problem = problem;
  // The configuration follows from the device and the problem, so the key
  // names the description and the problem.
  task.kernel_key = stable_hash(description + '\n' + problem.to_string() + '\n' +
                                std::to_string(problem.dimensions));
  add_arguments(task, std::move(args));
  return add(std::move(task));
}

void Graph::add_arguments(Task& task, std::vector<TaskArg> args) {
  for (TaskArg& arg : args) {
    if (arg.access) {
      task.args.emplace_back(task.accesses.size());
      task.accesses.push_back(std::move(*arg.access));
    } else {
      task.args.emplace_back(arg.scalar);
    }
  }
}

const Graph::SharedSource& Graph::share(ProgramSource source) {
  for (const SharedSource& known : sources_) {
    const ProgramSource& program = *known.source;
    if (program.source == source.source && program.options == source.options &&
        program.name == source.name) {
      return known;
    }
  }
  std::string identity = source.source;
  identity.append("\n").append(source.options).append("\n").append(source.name);
  const std::uint64_t hash = stable_hash(identity);
  return sources_.emplace_back(
      SharedSource{std::make_shared<const ProgramSource>(std::move(source)), hash});
}

TaskId Graph::copy(BufferSlice from, BufferSlice to, TaskOptions options) {
  if (from.range.size() != to.range.size()) {
    throw InvalidArgument("copy of " + std::to_string(from.range.size()) + " bytes into a slice of " +
                          std::to_string(to.range.size()) + " bytes; slices must be the same size");
  }
  // Backends copy in one pass, front to back or otherwise: overlapping
  // bytes would come out in an order nobody chose.
  if (from.storage == to.storage && from.range.overlaps(to.range)) {
    throw InvalidArgument("copy from bytes [" + std::to_string(from.range.begin) + ", " +
                          std::to_string(from.range.end) + ") to bytes [" +
                          std::to_string(to.range.begin) + ", " + std::to_string(to.range.end) +
                          ") of the same buffer: the ranges overlap; copy through a second buffer");
  }
  Task task;
  task.kind = TaskKind::copy;
  task.options = std::move(options);
  task.accesses = {read(std::move(from)), write(std::move(to))};
  return add(std::move(task));
}

TaskId Graph::fill_bytes(BufferSlice slice, std::uint32_t pattern, std::size_t pattern_bytes,
                         TaskOptions options) {
  if (slice.range.size() % pattern_bytes != 0 || slice.range.begin % pattern_bytes != 0) {
    throw InvalidArgument("fill of bytes [" + std::to_string(slice.range.begin) + ", " +
                          std::to_string(slice.range.end) + ") with a " +
                          std::to_string(pattern_bytes) +
                          "-byte pattern: offset and size must be multiples of it");
  }
  Task task;
  task.kind = TaskKind::fill;
  task.options = std::move(options);
  task.pattern = pattern;
  task.pattern_bytes = pattern_bytes;
  task.accesses = {write(std::move(slice))};
  return add(std::move(task));
}

TaskId Graph::host(std::vector<Access> accesses, std::function<void()> function,
                   TaskOptions options) {
  Task task;
  task.kind = TaskKind::host;
  task.options = std::move(options);
  task.accesses = std::move(accesses);
  task.function = std::move(function);
  return add(std::move(task));
}

void Graph::order(TaskId before, TaskId after) {
  if (before.index >= after.index || after.index >= tasks_.size()) {
    throw InvalidArgument("order(" + std::to_string(before.index) + ", " +
                          std::to_string(after.index) +
                          "): the first task must have been added before the second");
  }
  Task& task = tasks_[after.index];
  if (std::find(task.dependencies.begin(), task.dependencies.end(), before) ==
      task.dependencies.end()) {
    task.dependencies.push_back(before);
  }
  task.ordered_after.push_back(before);
}

}  // namespace alloy
