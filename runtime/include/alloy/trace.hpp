// What a traced executor recorded: every command on each device lane and
// every host task, on one clock, with the dependencies between tasks
// (docs/tracing.md). Its file, analysis and drawing are alloy::trace's
// (alloy/trace_file.hpp, alloy/utilization_report.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alloy {

/// What a slice of time on a lane was spent on.
enum class TraceKind {
  kernel,    ///< a launch: a task's kernel, or the executor's layout conversion
  copy_in,   ///< host to device
  copy_out,  ///< device to host
  copy,      ///< device to device
  fill,
  host,      ///< a host task
  async,     ///< an async task's operation in flight (a message), on a track of its own
  compile,   ///< preparing a kernel before its first launch on a device: compiled, or read from the compile cache
  /// A background executor's task held back from a device while another
  /// job's critical work was pending or present there (docs/sharing.md), on
  /// the device's "held back" lane.
  held_back,
};
std::string_view to_string(TraceKind kind);  ///< "kernel", "copy-in", ...
std::optional<TraceKind> trace_kind_named(std::string_view name);

/// A device as the trace names it, with its lanes: "compute 0".., "copy-in",
/// "copy-out" (docs/executor.md).
struct TraceDevice {
  std::string label;  ///< Device::label(): "opencl:0 pthread-..."
  std::uint32_t compute_units = 0;
  std::uint32_t copy_engines = 0;
  std::vector<std::string> lanes;
  /// The executor's memory share on the device (ExecutorOptions::memory_share)
  /// in bytes, 0: none; and the most its buffers' replicas took there.
  std::uint64_t memory_share = 0;
  std::uint64_t memory_peak = 0;

  bool operator==(const TraceDevice&) const = default;
};

/// One command on a device lane, or one host task on a host worker.
struct TraceSlice {
  std::uint64_t id = 0;  ///< unique in its trace
  /// The executor-wide id of the task it belongs to (Run::task); none for
  /// what the executor moves on its own, such as bytes brought home at wait().
  std::optional<std::uint64_t> task;
  std::string name;  ///< "task 3 'scale' (kernel)", "copy-in for task 3 ..."
  TraceKind kind = TraceKind::kernel;
  std::optional<std::size_t> device;  ///< index into Trace::devices; none: the host
  std::string lane;                   ///< one of the device's lanes, or "host worker 1"
  /// Nanoseconds on the host's clock since the trace began; a device's
  /// timestamps are moved onto it by that device's offset (docs/tracing.md).
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  /// When the host enqueued the command (a host task: when it became ready).
  std::uint64_t enqueued_ns = 0;
  /// When the program submitted the task's run (Executor::run or a one-task call).
  std::uint64_t run_submitted_ns = 0;
  std::uint64_t bytes = 0;  ///< moved by a transfer or fill; a kernel's as its task declares
  double flops = 0;         ///< a kernel's, as its task declares (TaskOptions::flops)
  // Kernels only.
  std::string kernel;         ///< the entry point
  std::string configuration;  ///< a tunable kernel's, "TS=16 WPT=4"; empty for a fixed one
  /// ProfileMatch's name ("device", "other-driver", "architecture", "vendor",
  /// "defaults"), or "fixed" for a kernel that is not tunable.
  std::string profile_match;
  std::string global_size;  ///< "1024x1024"
  std::string local_size;   ///< empty: the backend chose
  std::uint64_t work_groups = 0;  ///< 0: unknown (no local size)
  /// Of a launch that ran as slices, so that other jobs' critical work could
  /// start between them (docs/sharing.md): which one, from 1, of how many.
  /// 0 of 0: it ran whole.
  std::uint32_t kernel_slice = 0;
  std::uint32_t kernel_slices = 0;
  /// On a task's own command: the commands other jobs on the device had in
  /// flight when it was handed in, as critical and background jobs count
  /// them (docs/sharing.md); what it waited behind.
  std::uint32_t others_in_flight = 0;
  /// Of a held-back slice: the bound on the executor's background work in
  /// flight that held the task, in commands and in nanoseconds of predicted
  /// work.
  std::uint32_t bound_commands = 0;
  std::uint64_t bound_ns = 0;
  // Scheduling, on a task's own command.
  std::string policy;  ///< "round_robin", ..., or "pinned" (TaskOptions::device)
  std::optional<std::uint64_t> predicted_ns;
  std::vector<std::uint64_t> after;  ///< tasks it depends on, on its first slice

  std::uint64_t duration_ns() const { return end_ns - start_ns; }
  bool operator==(const TraceSlice&) const = default;
};

struct Trace {
  std::vector<TraceDevice> devices;
  std::vector<TraceSlice> slices;  ///< by start
  /// When the trace began, in nanoseconds since the Unix epoch on the host's
  /// system clock: what puts traces of several processes (MPI ranks) on one
  /// time line. 0: unknown.
  std::uint64_t origin_unix_ns = 0;

  bool operator==(const Trace&) const = default;
};

}  // namespace alloy
