// Task graphs: kernels, copies, fills and host functions over buffers, with
// dependencies inferred from what each task reads and writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "alloy/backend/program.hpp"
#include "alloy/buffer.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy {
namespace detail {
class DependencyTracker;
}

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

/// A task's position in its graph.
struct TaskId {
  std::uint32_t index = 0;
  bool operator==(const TaskId&) const = default;
};

/// One kernel argument of a task: a buffer access or a scalar.
struct TaskArg {
  TaskArg(Access buffer_access) : access(std::move(buffer_access)) {}
  template <class T>
    requires std::is_arithmetic_v<T>
  TaskArg(T value) : scalar(KernelArg::from(value)) {}

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
};

enum class TaskKind { kernel, copy, fill, host };

struct Task {
  TaskKind kind = TaskKind::host;
  TaskOptions options;
  std::vector<Access> accesses;
  std::vector<TaskId> dependencies;  ///< inferred and explicit, without repeats
  std::vector<TaskId> ordered_after;  ///< the explicit ones alone (Graph::order)

  // kernel: arguments refer to accesses by index, or are scalars
  std::shared_ptr<const ProgramSource> source;  ///< shared by the tasks of one program
  std::string kernel_name;
  /// Hash of the source, its options and name, and the kernel name: keys
  /// kernel lookups and timing history.
  std::uint64_t kernel_key = 0;
  std::optional<LaunchRange> range;
  std::vector<std::variant<std::size_t, KernelArg>> args;
  /// Set for a tunable kernel: its source options and range are chosen per
  /// device from the tuning profiles when the task is placed, so `source`
  /// and `range` are unset.
  std::shared_ptr<const TunableKernel> tunable;
  Extent problem;
  // fill
  std::uint32_t pattern = 0;
  std::size_t pattern_bytes = 0;
  // host
  std::function<void()> function;

  std::string label(TaskId id) const;  ///< "task 7 'scale' (kernel)"
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

  TaskId kernel(ProgramSource source, std::string kernel_name, LaunchRange range,
                std::vector<TaskArg> args, TaskOptions options = {});
  /// A tunable kernel for `problem`: on whichever device the task lands, it
  /// runs with the configuration that device's tuning profile chose (see
  /// Runtime::tuned), or the kernel's defaults without one.
  TaskId kernel(const TunableKernel& kernel, Extent problem, std::vector<TaskArg> args,
                TaskOptions options = {});
  /// Copies `from` into `to`: slices of one size that do not overlap
  /// (InvalidArgument otherwise). A copy of no bytes does nothing.
  TaskId copy(BufferSlice from, BufferSlice to, TaskOptions options = {});
  /// Repeats a 1-, 2- or 4-byte `value` over the slice.
  template <class T>
  TaskId fill(BufferSlice slice, T value, TaskOptions options = {});
  /// `function` runs on a host thread once the accessed slices are current
  /// in host memory (Buffer<T>::host()).
  TaskId host(std::vector<Access> accesses, std::function<void()> function,
              TaskOptions options = {});
  /// An edge the accesses do not imply.
  void order(TaskId before, TaskId after);

  /// Adds a task as built by hand: its `dependencies` are kept (as explicit
  /// edges) and the inferred ones added. The other calls end here.
  TaskId add(Task task);

  const std::vector<Task>& tasks() const { return tasks_; }
  const Task& task(TaskId id) const { return tasks_.at(id.index); }
  std::size_t size() const { return tasks_.size(); }

 private:
  TaskId fill_bytes(BufferSlice slice, std::uint32_t pattern, std::size_t pattern_bytes,
                    TaskOptions options);

  struct SharedSource {
    std::shared_ptr<const ProgramSource> source;
    std::uint64_t hash;  ///< of its text, options and name
  };
  /// The shared copy of `source`, made (and hashed) once per distinct program.
  const SharedSource& share(ProgramSource source);
  void add_arguments(Task& task, std::vector<TaskArg> args);

  std::vector<Task> tasks_;
  std::unique_ptr<detail::DependencyTracker> tracker_;
  std::vector<SharedSource> sources_;
  // By TunableKernel::description_hash().
  std::vector<std::pair<std::string, std::shared_ptr<const TunableKernel>>> tunables_;
};

template <class T>
TaskId Graph::fill(BufferSlice slice, T value, TaskOptions options) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "fill patterns are 1, 2 or 4 bytes");
  std::uint32_t pattern = 0;
  std::memcpy(&pattern, &value, sizeof(T));
  return fill_bytes(std::move(slice), pattern, sizeof(T), std::move(options));
}

}  // namespace alloy
