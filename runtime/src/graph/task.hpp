// What one task of a graph does, as the graph keeps it and the executor runs
// it (internal to the runtime; programs see TaskIds only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alloy/async_operation.hpp"
#include "alloy/backend/program.hpp"
#include "alloy/buffer.hpp"
#include "alloy/graph.hpp"
#include "alloy/input_file.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy::detail {

/// A kernel argument: the index of one of the task's accesses, or a scalar.
using TaskArgument = std::variant<std::size_t, KernelArg>;

/// A kernel of a fixed program, launched over the range given.
struct FixedKernel {
  std::shared_ptr<const ProgramSource> source;  ///< shared by the tasks of one program
  LaunchRange range;
};

/// A kernel argument whose device layout the configuration chooses: the
/// task's access it is, and its declaration in the tunable kernel.
struct LayoutBinding {
  std::size_t access = 0;
  bool matrix = false;          ///< in TunableKernel::matrices, else ::records
  std::size_t declaration = 0;  ///< index into that list
  /// How the host holds the buffer: its description, or for an undescribed
  /// matrix, packed row-major.
  std::shared_ptr<const HostLayout> host;
};

/// A tunable kernel: the source options and range follow from the device's
/// tuning profile and the problem when the task is placed.
struct TunedKernelCall {
  std::shared_ptr<const TunableKernel> tunable;  ///< shared by the tasks of one description
  Extent problem;
  std::vector<LayoutBinding> layouts;
};

/// KernelWork::key of a tunable kernel, by its description_hash(), and a problem.
std::uint64_t tuned_kernel_key(const std::string& description, const Extent& problem);

struct KernelWork {
  std::variant<FixedKernel, TunedKernelCall> program;
  std::string kernel_name;
  std::vector<TaskArgument> args;
  /// Keys the executor's kernel cache and the performance model's history.
  /// A fixed kernel: the hash of its source, options, program name and
  /// kernel name. A tunable one: of its description and the problem, since
  /// its configuration follows from those and the device.
  std::uint64_t key = 0;

  /// Work-items: the size timings are kept for. A tunable kernel's range
  /// depends on the device, so its problem size stands in.
  std::size_t work_items() const;
};

/// accesses[0] is copied into accesses[1].
struct CopyWork {};

/// A 1-, 2- or 4-byte pattern repeated over accesses[0].
struct FillWork {
  std::uint32_t pattern = 0;
  std::size_t pattern_bytes = 0;
};

/// Runs on a host thread once its accesses are current in host memory.
struct HostWork {
  std::function<void()> function;
};

/// Started on the executor's completion lane once its accesses are current in
/// host memory, and done when the operation it started completes.
struct AsyncWork {
  AsyncStart start;
};

/// Reads bytes [offset, offset + accesses[0]'s size) of a file into
/// accesses[0]: straight into the replica on a device that opens the file
/// directly, else into host memory (file_read_tasks.cpp).
struct FileReadWork {
  std::shared_ptr<const InputFile> file;
  std::size_t offset = 0;
};

struct Task {
  std::variant<KernelWork, CopyWork, FillWork, HostWork, AsyncWork, FileReadWork> work;
  TaskOptions options;
  std::vector<Access> accesses;

  const KernelWork* kernel() const { return std::get_if<KernelWork>(&work); }
  /// Host and async tasks: they run on host threads, over host memory.
  bool on_host() const { return std::holds_alternative<HostWork>(work) || std::holds_alternative<AsyncWork>(work); }
  const AsyncWork* async() const { return std::get_if<AsyncWork>(&work); }
  const FileReadWork* file_read() const { return std::get_if<FileReadWork>(&work); }
  /// A copy or fill of no bytes has nothing to enqueue; it only keeps its
  /// place in the order.
  bool moves_no_bytes() const;
  /// "kernel", "copy", "fill", "host", "async" or "file read".
  const char* kind_name() const;
  /// "task 7 'scale' (kernel)", for `id` as the task is known where it is named.
  std::string label(TaskId id) const;
};

/// How tasks are named in errors and traces: "task 7 'scale' (kernel)", and
/// " of graph run 2" after it for a task of a graph's second run (0: none).
std::string task_label(std::uint64_t number, std::string_view name, const char* kind, std::uint32_t graph_run = 0);

}  // namespace alloy::detail
