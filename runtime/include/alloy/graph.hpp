// Task graphs: kernels, copies, fills and host functions over buffers, with
// dependencies inferred from what each task reads and writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "alloy/async_operation.hpp"
#include "alloy/backend/program.hpp"
#include "alloy/buffer.hpp"
#include "alloy/input_file.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy {
class Graph;
namespace detail {
struct GraphData;
std::shared_ptr<const GraphData> snapshot(const Graph& graph);
std::shared_ptr<GraphData> take(Graph&& graph);
}  // namespace detail

enum class SchedulingPolicy {
  /// Task i goes to device i mod n (among tasks without a fixed device).
  round_robin,
  /// The device with the fewest tasks submitted and not yet known complete.
  least_loaded,
  /// The device where the task is predicted to finish first, from measured
  /// kernel times per (kernel, device, size) and transfer bandwidth for the
  /// inputs it lacks (see PerformanceModel); a device that has not run a
  /// kernel yet is assumed average for it until measured.
  earliest_finish_time,
};

/// A task's position in its graph, or, as an executor returns it, the task's
/// number in that executor: unique for the executor's life.
struct TaskId {
  std::uint64_t index = 0;
  bool operator==(const TaskId&) const = default;
};

/// One kernel argument of a task: a buffer access (the task keeps the buffer
/// alive) or a scalar (copied).
struct TaskArg {
  TaskArg(Access buffer_access) : access(std::move(buffer_access)) {}
  template <class T>
    requires std::is_arithmetic_v<T>
  TaskArg(T value) : scalar(KernelArg::from(value)) {}
  /// A scalar already packed; InvalidArgument for a KernelArg that is a
  /// buffer (pass an Access instead).
  explicit TaskArg(const KernelArg& packed_scalar);

  std::optional<Access> access;
  KernelArg scalar;
};

struct TaskOptions {
  std::string name;                   ///< for errors and traces
  std::optional<std::size_t> device;  ///< index into the executor's devices: run there
  /// Among ready tasks, higher runs first; by default the longest remaining
  /// critical path does.
  std::optional<int> priority;
  /// How to pick the device when `device` is not given; by default the
  /// graph's policy (Executor::run), else the executor's.
  std::optional<SchedulingPolicy> policy;
  /// Tasks this one runs after besides those its accesses imply: in a
  /// Graph, tasks added to it before (as Graph::order does); in an
  /// Executor's one-task calls, ids it returned before (Run::task), also of
  /// work wait() has already seen finish.
  std::vector<TaskId> after;
  /// What a kernel task does, as the program counts it, for the achieved
  /// FLOP/s and bandwidth in traces (docs/tracing.md); 0: not declared.
  double flops = 0;
  std::size_t bytes = 0;
};

/// A graph is built once and can be run many times by an Executor. Edges
/// follow from accesses in the order tasks are added: a read after a write
/// of overlapping bytes, a write after a read, a write after a write. Not
/// thread-safe: build a graph from one thread.
class Graph {
 public:
  Graph();
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;

  // Every call that adds a task throws InvalidArgument, adding nothing, for
  // an access outside its buffer or naming none, and for TaskOptions::after
  // naming a task not in the graph yet. Compile errors are not found here:
  // they are the task's failure when it runs.

  /// `kernel_name` from `source`, launched over `range`. The graph shares
  /// one copy of each program among its kernels, and the program a thread
  /// used lately is shared rather than copied again.
  TaskId kernel(const ProgramSource& source, std::string kernel_name, LaunchRange range,
                std::vector<TaskArg> args, TaskOptions options = {});
  /// A tunable kernel for `problem`: on whichever device the task lands, it
  /// runs with the configuration that device's tuning profile chose (see
  /// Runtime::tuned), or the kernel's defaults without one. InvalidArgument
  /// when the description does not validate (TunableKernel::validate).
  TaskId kernel(const TunableKernel& kernel, Extent problem, std::vector<TaskArg> args,
                TaskOptions options = {});
  /// Copies `from` into `to`: slices of one size that do not overlap
  /// (InvalidArgument otherwise). A copy of no bytes does nothing.
  TaskId copy(BufferSlice from, BufferSlice to, TaskOptions options = {});
  /// Repeats a 1-, 2- or 4-byte `value` over the slice; InvalidArgument
  /// unless the slice's offset and size are multiples of the pattern.
  template <class T>
  TaskId fill(BufferSlice slice, T value, TaskOptions options = {});
  /// Reads bytes [file_offset, file_offset + into's size) of `file` into
  /// `into` (a write of it). On a device that opens the file directly
  /// (InputFile::direct: GPUDirect Storage), the bytes land in that device's
  /// replica with no copy through host memory, and that replica is then
  /// the valid one; elsewhere, and for borrowed host memory, a host thread
  /// reads them into host memory. The device is placed as for a copy:
  /// name it in `options.device` to read straight into the device that
  /// uses the bytes next. A range past the file's end, or a read that fails,
  /// is the task's failure. A device is asked on the file's first use there,
  /// which for cuFile may open its driver: InputFile::direct asks ahead.
  TaskId read_file(std::shared_ptr<const InputFile> file, std::size_t file_offset, BufferSlice into,
                   TaskOptions options = {});
  /// The same for a file opened here (InputFile::open): Error at once when
  /// it cannot be opened.
  TaskId read_file(const std::filesystem::path& path, std::size_t file_offset, BufferSlice into,
                   TaskOptions options = {});
  /// `function` runs on a host thread once the accessed slices are current
  /// in host memory (Buffer<T>::host()).
  TaskId host(std::vector<Access> accesses, std::function<void()> function,
              TaskOptions options = {});
  /// An operation that completes outside any device (a message over a
  /// network, say): once the accessed slices are current in host memory,
  /// `start` runs on the executor's async lane and the operation it returns
  /// is polled there; the task is done, and its dependents may start, when
  /// the operation completes. No host worker waits for it meanwhile.
  /// InvalidArgument for an empty `start`.
  TaskId async(std::vector<Access> accesses, AsyncStart start, TaskOptions options = {});
  /// An edge the accesses do not imply. InvalidArgument unless `before`
  /// was added before `after`.
  void order(TaskId before, TaskId after);

  std::size_t size() const;
  /// The tasks of this graph that `id` runs after, inferred from accesses
  /// and explicit: sorted, without repeats. Valid until the graph changes.
  const std::vector<TaskId>& dependencies(TaskId id) const;
  /// The key under which PerformanceModel keeps kernel task `id`'s times
  /// (to seed it); InvalidArgument for a task that is not a kernel.
  std::uint64_t kernel_key(TaskId id) const;
  /// "task 7 'scale' (kernel)", as errors name it.
  std::string label(TaskId id) const;

 private:
  friend std::shared_ptr<const detail::GraphData> detail::snapshot(const Graph&);
  friend std::shared_ptr<detail::GraphData> detail::take(Graph&&);

  TaskId fill_bytes(BufferSlice slice, std::uint32_t pattern, std::size_t pattern_bytes,
                    TaskOptions options);
  /// Infers the new task's edges and appends it.
  template <class Work>
  TaskId add(Work work, TaskOptions options, std::vector<Access> accesses);
  /// The data, copied first if a snapshot shares it.
  detail::GraphData& writable();
  const detail::GraphData& data() const;

  // Shared with the snapshots of runs in flight until the graph changes.
  mutable std::shared_ptr<detail::GraphData> data_;
};

template <class T>
TaskId Graph::fill(BufferSlice slice, T value, TaskOptions options) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "fill patterns are 1, 2 or 4 bytes");
  std::uint32_t pattern = 0;
  std::memcpy(&pattern, &value, sizeof(T));
  return fill_bytes(std::move(slice), pattern, sizeof(T), std::move(options));
}

}  // namespace alloy
