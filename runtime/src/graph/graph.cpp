// Building task graphs and inferring their edges from buffer accesses.
#include "alloy/graph.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <string_view>
#include <utility>

#include "alloy/error.hpp"
#include "graph_data.hpp"
#include "layout_bindings.hpp"

namespace alloy {
namespace {

using detail::sort_unique;

/// The remaining critical path of each task, in tasks.
std::vector<std::uint32_t> critical_paths(const detail::GraphData& graph) {
  const std::size_t size = graph.tasks.size();
  std::vector<std::uint32_t> longest_after(size, 0);
  std::vector<std::uint32_t> path(size, 1);
  for (std::size_t i = size; i-- > 0;) {
    path[i] = longest_after[i] + 1;
    for (TaskId before : graph.dependencies[i]) {
      longest_after[before.index] = std::max(longest_after[before.index], path[i]);
    }
  }
  return path;
}

void add_arguments(detail::KernelWork& kernel, std::vector<Access>& accesses,
                   std::vector<TaskArg> args) {
  for (TaskArg& arg : args) {
    if (arg.access) {
      kernel.args.emplace_back(accesses.size());
      accesses.push_back(std::move(*arg.access));
    } else {
      kernel.args.emplace_back(arg.scalar);
    }
  }
}

/// Mixes `value` into `hash`.
std::uint64_t combined(std::uint64_t hash, std::uint64_t value) { return (hash ^ value) * 0x9e3779b97f4a7c15ull; }

/// The in-process identity of a program, which the executor's kernel cache
/// and performance model key on. std::hash reads the text eight bytes at a
/// time; stable_hash, for what is kept across processes, reads it byte by
/// byte, which a one-task call would pay for its whole source per call.
std::uint64_t program_identity(const ProgramSource& source) {
  const std::hash<std::string_view> hash;
  return combined(combined(hash(source.source), hash(source.options)), hash(source.name));
}

bool same_program(const ProgramSource& a, const ProgramSource& b) {
  return a.source == b.source && a.options == b.options && a.name == b.name;
}

/// The shared copy of `source` the graph's kernels use, made (and hashed)
/// once per distinct program. A thread keeps the last few it made: a
/// program used call after call (one-task calls, a graph built per step)
/// is then compared, not copied and hashed again.
const detail::GraphData::SharedSource& share(detail::GraphData& graph, const ProgramSource& source) {
  for (const auto& known : graph.sources) {
    if (same_program(*known.source, source)) return known;
  }
  constexpr std::size_t kept = 4;
  thread_local std::array<detail::GraphData::SharedSource, kept> recent;
  thread_local std::size_t next = 0;
  for (const auto& known : recent) {
    if (known.source && same_program(*known.source, source)) return graph.sources.emplace_back(known);
  }
  detail::GraphData::SharedSource made{std::make_shared<const ProgramSource>(source), program_identity(source)};
  recent[next++ % kept] = made;
  return graph.sources.emplace_back(std::move(made));
}

/// The shared copy of `tunable`, found by content: two objects at one
/// address over time may differ.
std::shared_ptr<const TunableKernel> share(detail::GraphData& graph, const TunableKernel& tunable,
                                           const std::string& description) {
  auto found = std::find_if(graph.tunables.begin(), graph.tunables.end(),
                            [&](const auto& known) { return known.first == description; });
  if (found == graph.tunables.end()) {
    graph.tunables.emplace_back(description, std::make_shared<const TunableKernel>(tunable));
    found = std::prev(graph.tunables.end());
  }
  return found->second;
}

/// Borrowed (host-resident) memory is only read where it was lent read-only,
/// and reaches devices only through copies to and from device buffers.
void check_borrowed_memory(const detail::Task& task, TaskId id) {
  std::size_t host_resident = 0;
  for (std::size_t i = 0; i < task.accesses.size(); ++i) {
    const BufferStorage& storage = *task.accesses[i].slice.storage;
    if (storage.read_only() && writes(task.accesses[i].mode)) {
      throw InvalidArgument(task.label(id) + " writes a buffer borrowed read-only (access " +
                            std::to_string(i) + "); borrow it with Buffer<T>::borrow to write it");
    }
    if (!storage.host_resident()) continue;
    ++host_resident;
    if (task.kernel() || std::holds_alternative<detail::FillWork>(task.work)) {
      throw InvalidArgument(task.label(id) + " uses borrowed host memory (access " +
                            std::to_string(i) + ") on a device; copy slices of it into a device "
                            "buffer first (Graph::copy), or use it in a host task");
    }
  }
  if (std::holds_alternative<detail::CopyWork>(task.work) && host_resident == 2) {
    throw InvalidArgument(task.label(id) + " copies between two borrowed host buffers; a copy "
                          "needs a device buffer on one side: use a host task for host-to-host copies");
  }
}

}  // namespace

namespace detail {

std::shared_ptr<const GraphData> snapshot(const Graph& graph) {
  if (!graph.data_) graph.data_ = std::make_shared<GraphData>();
  if (!graph.data_->critical_paths_current) {
    GraphData& data = const_cast<Graph&>(graph).writable();
    data.critical_paths = critical_paths(data);
    data.critical_paths_current = true;
  }
  return graph.data_;
}

std::shared_ptr<GraphData> take(Graph&& graph) {
  graph.writable();  // not shared with any snapshot
  return std::exchange(graph.data_, nullptr);
}

}  // namespace detail

TaskArg::TaskArg(const KernelArg& packed_scalar) : scalar(packed_scalar) {
  if (packed_scalar.kind == KernelArg::Kind::buffer) {
    throw InvalidArgument("a task's kernel argument is a raw device buffer; pass the buffer as an "
                          "Access (alloy::read, write or read_write) so the executor can place it");
  }
}

Graph::Graph() = default;
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

detail::GraphData& Graph::writable() {
  if (!data_) {
    data_ = std::make_shared<detail::GraphData>();
  } else if (data_.use_count() > 1) {
    // A run in flight reads the snapshot; it must not see this change.
    data_ = std::make_shared<detail::GraphData>(*data_);
  }
  return *data_;
}

const detail::GraphData& Graph::data() const {
  static const detail::GraphData empty;
  return data_ ? *data_ : empty;
}

std::size_t Graph::size() const { return data().tasks.size(); }

const std::vector<TaskId>& Graph::dependencies(TaskId id) const {
  if (id.index >= size()) {
    throw InvalidArgument("dependencies of task " + std::to_string(id.index) + " of a graph of " +
                          std::to_string(size()) + " tasks");
  }
  return data().dependencies[id.index];
}

std::uint64_t Graph::kernel_key(TaskId id) const {
  const detail::KernelWork* kernel = id.index < size() ? data().tasks[id.index].kernel() : nullptr;
  if (!kernel) {
    throw InvalidArgument("kernel_key: " +
                          (id.index < size() ? label(id) : "task " + std::to_string(id.index)) +
                          " is not a kernel task of this graph");
  }
  return kernel->key;
}

std::string Graph::label(TaskId id) const {
  if (id.index >= size()) return "task " + std::to_string(id.index) + " (not in the graph)";
  return data().tasks[id.index].label(id);
}

template <class Work>
TaskId Graph::add(Work work, TaskOptions options, std::vector<Access> accesses) {
  detail::GraphData& graph = writable();
  const TaskId id{graph.tasks.size()};
  detail::Task task{std::move(work), std::move(options), std::move(accesses)};
  check_borrowed_memory(task, id);
  for (TaskId before : task.options.after) {
    if (before.index >= id.index) {
      throw InvalidArgument(task.label(id) + " is to run after task " +
                            std::to_string(before.index) + ", which is not in the graph yet");
    }
  }
  std::vector<TaskId> dependencies = graph.tracker.record_task(task, id);
  std::vector<TaskId> ordered_after = std::exchange(task.options.after, {});  // kept as edges
  if (!ordered_after.empty()) {
    dependencies.insert(dependencies.end(), ordered_after.begin(), ordered_after.end());
    sort_unique(dependencies);
    sort_unique(ordered_after);
  }
  graph.tasks.push_back(std::move(task));
  graph.dependencies.push_back(std::move(dependencies));
  graph.ordered_after.push_back(std::move(ordered_after));
  graph.critical_paths_current = false;
  return id;
}

TaskId Graph::kernel(const ProgramSource& source, std::string kernel_name, LaunchRange range,
                     std::vector<TaskArg> args, TaskOptions options) {
  if (options.name.empty()) options.name = kernel_name;
  const detail::GraphData::SharedSource& shared = share(writable(), source);
  const std::uint64_t key = combined(shared.hash, std::hash<std::string_view>()(kernel_name));
  detail::KernelWork kernel{detail::FixedKernel{shared.source, range}, std::move(kernel_name), {}, key};
  std::vector<Access> accesses;
  add_arguments(kernel, accesses, std::move(args));
  return add(std::move(kernel), std::move(options), std::move(accesses));
}

TaskId Graph::kernel(const TunableKernel& tunable, Extent problem, std::vector<TaskArg> args,
                     TaskOptions options) {
  if (options.name.empty()) options.name = tunable.name;
  tunable.validate();
  const std::string description = tunable.description_hash();
  detail::KernelWork kernel{detail::TunedKernelCall{share(writable(), tunable, description), problem, {}},
                            tunable.kernel_name, {}, detail::tuned_kernel_key(description, problem)};
  std::vector<Access> accesses;
  add_arguments(kernel, accesses, std::move(args));
  std::get<detail::TunedKernelCall>(kernel.program).layouts = detail::bind_layouts(tunable, kernel, accesses);
  return add(std::move(kernel), std::move(options), std::move(accesses));
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
  return add(detail::CopyWork{}, std::move(options), {read(std::move(from)), write(std::move(to))});
}

TaskId Graph::fill_bytes(BufferSlice slice, std::uint32_t pattern, std::size_t pattern_bytes,
                         TaskOptions options) {
  if (slice.range.size() % pattern_bytes != 0 || slice.range.begin % pattern_bytes != 0) {
    throw InvalidArgument("fill of bytes [" + std::to_string(slice.range.begin) + ", " +
                          std::to_string(slice.range.end) + ") with a " +
                          std::to_string(pattern_bytes) +
                          "-byte pattern: offset and size must be multiples of it");
  }
  return add(detail::FillWork{pattern, pattern_bytes}, std::move(options), {write(std::move(slice))});
}

TaskId Graph::read_file(std::shared_ptr<const InputFile> file, std::size_t file_offset, BufferSlice into,
                        TaskOptions options) {
  if (!file) {
    throw InvalidArgument("read_file" + (options.name.empty() ? "" : " '" + options.name + "'") + " with no file");
  }
  if (options.name.empty()) options.name = "read " + file->path().filename().string();
  return add(detail::FileReadWork{std::move(file), file_offset}, std::move(options), {write(std::move(into))});
}

TaskId Graph::read_file(const std::filesystem::path& path, std::size_t file_offset, BufferSlice into,
                        TaskOptions options) {
  return read_file(InputFile::open(path), file_offset, std::move(into), std::move(options));
}

TaskId Graph::host(std::vector<Access> accesses, std::function<void()> function,
                   TaskOptions options) {
  return add(detail::HostWork{std::move(function)}, std::move(options), std::move(accesses));
}

TaskId Graph::async(std::vector<Access> accesses, AsyncStart start, TaskOptions options) {
  if (!start) throw InvalidArgument("async task" + (options.name.empty() ? "" : " '" + options.name + "'") + " with no start function");
  return add(detail::AsyncWork{std::move(start)}, std::move(options), std::move(accesses));
}

void Graph::order(TaskId before, TaskId after) {
  if (before.index >= after.index || after.index >= size()) {
    throw InvalidArgument("order(" + std::to_string(before.index) + ", " +
                          std::to_string(after.index) +
                          "): the first task must have been added before the second");
  }
  detail::GraphData& graph = writable();
  for (std::vector<TaskId>* edges : {&graph.dependencies[after.index], &graph.ordered_after[after.index]}) {
    edges->push_back(before);
    sort_unique(*edges);
  }
  graph.critical_paths_current = false;
}

}  // namespace alloy
