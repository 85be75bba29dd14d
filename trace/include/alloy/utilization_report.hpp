// How busy each device of a trace was, why it idled, and what would fix it
// (docs/tracing.md says how each figure is computed).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloy/trace.hpp"

namespace alloy {

/// Why a device's compute lanes were idle, for each moment of an idle gap;
/// the first that holds names the moment.
enum class IdleCause {
  transfer,       ///< a copy or fill ran on the device: not overlapped with compute
  host_task,      ///< a host task the next kernel waits for ran
  communication,  ///< an async operation the next kernel waits for was in flight (a message from a peer)
  other_device,   ///< a command on another device the next kernel waits for ran
  compile,        ///< a kernel was being compiled (or read from the compile cache)
  /// a background executor held a task back while another job's critical
  /// work was pending or present on the device (docs/sharing.md)
  held_back,
  submission,     ///< the program had not submitted the next kernel's run yet
  /// handed to the device, not started yet, while other jobs had commands
  /// in flight there: it waited behind another job's kernels
  other_jobs,
  launch,         ///< submitted, not started yet: the cost of launching it
  starved,        ///< after its last kernel, while another device still computed
  finished,       ///< after its last kernel, with no device computing
};
inline constexpr std::size_t idle_cause_count = 11;
std::string_view to_string(IdleCause cause);  ///< "transfer", "host task", ...

/// One stretch of time the device's compute lanes all idled.
struct IdleGap {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::array<std::uint64_t, idle_cause_count> by_cause{};  ///< nanoseconds, summing to its length
  IdleCause main_cause() const;  ///< the cause of most of it
};

struct LaneUtilization {
  std::string lane;
  std::uint64_t busy_ns = 0;
  double busy = 0;  ///< busy_ns over the traced window
};

struct DeviceUtilization {
  std::string label;
  /// While any compute lane ran a kernel, over the traced window.
  std::uint64_t compute_ns = 0;
  double busy = 0;
  std::vector<LaneUtilization> lanes;
  std::uint64_t copy_ns = 0;     ///< while any copy or fill ran
  std::uint64_t overlap_ns = 0;  ///< while a copy and a kernel both ran
  double overlap = 0;            ///< overlap_ns over copy_ns; 0 without copies
  std::array<std::uint64_t, idle_cause_count> idle_by_cause{};
  std::vector<IdleGap> gaps;
  /// The executor's memory share there and the most it took (TraceDevice's).
  std::uint64_t memory_share = 0;
  std::uint64_t memory_peak = 0;
  /// Held-back slices: how many, and the loosest and tightest bounds on
  /// background work in flight that held them, in ns of predicted work.
  std::size_t holds = 0;
  std::uint64_t tightest_bound_ns = 0;
  std::uint64_t loosest_bound_ns = 0;
};

/// One kernel entry point on one device, over all its launches.
struct KernelUtilization {
  std::string kernel;
  std::size_t device = 0;
  std::size_t launches = 0;
  std::uint64_t total_ns = 0;
  std::uint64_t bytes = 0;  ///< as the tasks declare (TaskOptions::bytes)
  double flops = 0;         ///< as the tasks declare (TaskOptions::flops)
  std::optional<double> bytes_per_second;
  std::optional<double> flops_per_second;
  std::string profile_match;  ///< of its last launch
  std::string configuration;  ///< of its last launch
  std::uint64_t work_groups = 0;  ///< the fewest any launch had; 0: unknown
};

/// A cause worth fixing, with what fixing it would save at most.
struct Diagnosis {
  std::string cause;  ///< "transfer-bound", "launch-bound", "host-task-bound", ...
  std::optional<std::size_t> device;
  std::uint64_t saving_ns = 0;
  std::string finding;  ///< what the trace shows
  std::string remedy;   ///< the alloy feature that fixes it
};

struct UtilizationReport {
  std::uint64_t window_start_ns = 0;  ///< the first slice's start
  std::uint64_t window_ns = 0;        ///< to the last slice's end
  std::size_t tasks = 0;
  std::vector<DeviceUtilization> devices;
  /// While some async operation (a message) was in flight, and the part of
  /// that while some device computed: communication overlapped with compute.
  std::uint64_t communication_ns = 0;
  std::uint64_t communication_overlap_ns = 0;
  std::vector<KernelUtilization> kernels;  ///< most time first
  /// Ordered by saving, 1 to 5; a single "none" when nothing costs over 1%
  /// of the window.
  std::vector<Diagnosis> diagnoses;

  std::string to_text() const;
  std::string to_json() const;
};

UtilizationReport analyze(const Trace& trace);

}  // namespace alloy
