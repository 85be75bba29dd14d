// What held each device back, in words, with what fixing it would save.
#include "diagnosis.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "time_text.hpp"

namespace alloy::detail {
namespace {

/// A cause below this share of the traced window is not worth a line.
constexpr double worth_a_line = 0.01;
constexpr std::size_t most_lines = 5;
/// What tuning saves is unknown before tuning; the report assumes it halves
/// a kernel's time, to rank the line among the others (docs/tracing.md).
constexpr double assumed_tuning_speedup = 2.0;
/// A driver change moves a tuned kernel's best configuration less than
/// tuning moves the defaults: the report assumes re-tuning saves a tenth.
constexpr double assumed_retuning_saving = 0.1;

std::uint64_t idle(const DeviceUtilization& device, IdleCause cause) {
  return device.idle_by_cause[static_cast<std::size_t>(cause)];
}

/// Kernels on `device`, how long they ran and how many gaps had some launch time.
struct KernelCount {
  std::size_t kernels = 0;
  std::uint64_t ns = 0;
};

KernelCount kernels_on(const Trace& trace, std::size_t device) {
  KernelCount count;
  for (const TraceSlice& slice : trace.slices) {
    if (slice.kind == TraceKind::kernel && slice.device == device) {
      ++count.kernels;
      count.ns += slice.duration_ns();
    }
  }
  return count;
}

/// Whether the traced work streamed through alloy::Pipeline (its tasks are
/// named "chunk N: ...").
bool streams_through_a_pipeline(const Trace& trace) {
  return std::any_of(trace.slices.begin(), trace.slices.end(),
                     [](const TraceSlice& slice) { return slice.task && slice.name.find("'chunk ") != std::string::npos; });
}

std::string transfer_remedy(const DeviceUtilization& device, bool pipelined) {
  if (pipelined) {
    return "the program streams through alloy::Pipeline already: give it more chunks in flight "
           "(PipelineOptions::depth), longer chunks (PipelineOptions::chunk_elements, or 0 to calibrate), or "
           "another host memory route (PipelineOptions::host_memory; its report names the route and why)";
  }
  return device.overlap < 0.5 ? "overlap copies with compute: stream the data through alloy::Pipeline "
                                "(docs/streaming.md), which moves chunk i+1 while chunk i computes"
                              : "the copies bound the device even overlapped: move fewer bytes (keep buffers on "
                                "the device across tasks, or use narrower types)";
}

void idle_diagnoses(const Trace& trace, const UtilizationReport& report, std::vector<Diagnosis>& lines) {
  const bool pipelined = streams_through_a_pipeline(trace);
  for (std::size_t d = 0; d < report.devices.size(); ++d) {
    const DeviceUtilization& device = report.devices[d];
    const std::string& label = device.label;
    lines.push_back(
        {"transfer-bound", d, idle(device, IdleCause::transfer),
         label + " computed nothing for " + duration_text(idle(device, IdleCause::transfer)) +
             " while copies ran; " + percent_text(device.overlap) + " of its " + duration_text(device.copy_ns) +
             " of copies overlapped a kernel",
         transfer_remedy(device, pipelined)});
    lines.push_back({"host-task-bound", d, idle(device, IdleCause::host_task),
                     label + " waited " + duration_text(idle(device, IdleCause::host_task)) +
                         " for host tasks its kernels depend on",
                     "shorten or split those host tasks, or do their work in a kernel"});
    lines.push_back({"communication-bound", d, idle(device, IdleCause::communication),
                     label + " waited " + duration_text(idle(device, IdleCause::communication)) +
                         " for async operations its kernels depend on (messages from other ranks); " +
                         percent_text(report.communication_ns > 0
                                          ? static_cast<double>(report.communication_overlap_ns) /
                                                static_cast<double>(report.communication_ns)
                                          : 0.0) +
                         " of the time messages were in flight overlapped a kernel",
                     "overlap communication with compute: compute what needs no message while messages travel "
                     "(the interior first, then the halo: docs/mpi.md), or send earlier"});
    lines.push_back({"compile-bound", d, idle(device, IdleCause::compile),
                     label + " waited " + duration_text(idle(device, IdleCause::compile)) +
                         " while kernels were compiled or read from the compile cache",
                     "keep the compile cache warm: run once before timing, keep ALLOY_CACHE_DIR (by default "
                     "~/.cache/alloy/programs) between runs, or compile ahead with Runtime::program"});
    std::size_t launch_gaps = 0;
    for (const IdleGap& gap : device.gaps) launch_gaps += gap.by_cause[static_cast<std::size_t>(IdleCause::launch)] > 0;
    const KernelCount kernels = kernels_on(trace, d);
    if (launch_gaps > 0 && kernels.kernels > 0) {
      lines.push_back(
          {"launch-bound", d, idle(device, IdleCause::launch),
           label + " ran " + std::to_string(kernels.kernels) + " kernels of " +
               duration_text(kernels.ns / kernels.kernels) + " on average, with " +
               duration_text(idle(device, IdleCause::launch) / launch_gaps) +
               " of launch gap before each of " + std::to_string(launch_gaps) +
               ": the kernels are short for what launching one costs",
           "fewer, larger tasks: give each kernel more work (a larger problem per task), or merge kernels"});
    }
    lines.push_back({"submission-bound", d, idle(device, IdleCause::submission),
                     label + " waited " + duration_text(idle(device, IdleCause::submission)) +
                         " for the program to submit its next work",
                     "submit ahead: build a Graph of the work and Executor::run it, or submit the next tasks "
                     "before waiting for these"});
    lines.push_back({"yielded-to-critical-work", d, idle(device, IdleCause::held_back),
                     label + " ran nothing of this job's for " + duration_text(idle(device, IdleCause::held_back)) +
                         " while it held " + std::to_string(device.holds) +
                         " tasks back for another job's critical work",
                     "a background job yields by design (docs/sharing.md): run it as class normal "
                     "(ExecutorOptions::priority_class) to contend on equal terms, or where no critical job runs"});
    lines.push_back({"shared-device", d, idle(device, IdleCause::other_jobs),
                     label + " waited " + duration_text(idle(device, IdleCause::other_jobs)) +
                         " behind other jobs' kernels: they had commands in flight when its own were handed in",
                     "declare this job critical and the others background (ExecutorOptions::priority_class or "
                     "ALLOY_PRIORITY_CLASS): their long kernels then run in slices it can start between "
                     "(docs/sharing.md)"});
    lines.push_back({"cross-device-waits", d, idle(device, IdleCause::other_device),
                     label + " waited " + duration_text(idle(device, IdleCause::other_device)) +
                         " for commands of another device its kernels depend on",
                     "keep chains of dependent tasks on one device: SchedulingPolicy::earliest_finish_time "
                     "prices the transfers, or TaskOptions::device pins a chain"});
  }
}

void placement_diagnosis(const Trace& trace, const UtilizationReport& report, std::vector<Diagnosis>& lines) {
  if (report.devices.size() < 2) return;
  std::uint64_t total = 0;
  std::uint64_t starved = 0;
  std::size_t busiest = 0;
  std::size_t least = 0;
  for (std::size_t d = 0; d < report.devices.size(); ++d) {
    const std::uint64_t compute = report.devices[d].compute_ns;
    total += compute;
    starved += idle(report.devices[d], IdleCause::starved);
    if (compute > report.devices[busiest].compute_ns) busiest = d;
    if (compute < report.devices[least].compute_ns) least = d;
  }
  const std::uint64_t even = total / report.devices.size();
  if (starved == 0 || report.devices[busiest].compute_ns <= even) return;
  std::set<std::string> policies;
  for (const TraceSlice& slice : trace.slices) {
    if (slice.kind == TraceKind::kernel && slice.task && !slice.policy.empty()) policies.insert(slice.policy);
  }
  const std::string remedy =
      policies == std::set<std::string>{"pinned"}
          ? "the tasks are pinned (TaskOptions::device): spread them over the devices"
      : !policies.contains("earliest_finish_time")
          ? "place by earliest finish time (SchedulingPolicy::earliest_finish_time), which weighs each device's "
            "tuned and measured speed"
          : "split the work into more, smaller tasks, so that every device gets a share";
  lines.push_back({"placement", least, report.devices[busiest].compute_ns - even,
                   report.devices[busiest].label + " computed " + duration_text(report.devices[busiest].compute_ns) +
                       " while " + report.devices[least].label + " computed " +
                       duration_text(report.devices[least].compute_ns) + " and sat " + duration_text(starved) +
                       " idle after its last kernel",
                   remedy});
}

/// Per kernel and device: launches of too few work-groups, and launches on
/// default parameters.
void kernel_diagnoses(const Trace& trace, std::vector<Diagnosis>& lines) {
  struct Seen {
    std::uint64_t underfilled_saving = 0;
    std::uint64_t fewest_groups = 0;
    std::uint64_t untuned_ns = 0;
    std::uint64_t stale_ns = 0;  ///< on a profile of this device made under another driver
  };
  std::map<std::pair<std::size_t, std::string>, Seen> kernels;
  for (const TraceSlice& slice : trace.slices) {
    if (slice.kind != TraceKind::kernel || !slice.device || !slice.task) continue;
    Seen& seen = kernels[{*slice.device, slice.kernel}];
    const std::uint32_t units = trace.devices.at(*slice.device).compute_units;
    // A slice has few groups by design: the whole launch is what would under-fill.
    if (slice.kernel_slices == 0 && slice.work_groups != 0 && slice.work_groups < units) {
      seen.underfilled_saving += static_cast<std::uint64_t>(static_cast<double>(slice.duration_ns()) *
                                                            (1.0 - static_cast<double>(slice.work_groups) / units));
      if (seen.fewest_groups == 0 || slice.work_groups < seen.fewest_groups) seen.fewest_groups = slice.work_groups;
    }
    if (slice.profile_match == "defaults") seen.untuned_ns += slice.duration_ns();
    if (slice.profile_match == "other-driver") seen.stale_ns += slice.duration_ns();
  }
  for (const auto& [key, seen] : kernels) {
    const auto& [device, kernel] = key;
    const TraceDevice& on = trace.devices[device];
    if (seen.underfilled_saving > 0) {
      lines.push_back({"under-filled", device, seen.underfilled_saving,
                       "kernel '" + kernel + "' on " + on.label + " launched as few as " +
                           std::to_string(seen.fewest_groups) + " work-groups on its " +
                           std::to_string(on.compute_units) + " compute units",
                       "launch at least " + std::to_string(on.compute_units) +
                           " work-groups: a larger problem per task, or a smaller work-group (autotune picks "
                           "one per device)"});
    }
    if (seen.untuned_ns > 0) {
      lines.push_back({"untuned", device,
                       static_cast<std::uint64_t>(static_cast<double>(seen.untuned_ns) * (1.0 - 1.0 / assumed_tuning_speedup)),
                       "kernel '" + kernel + "' on " + on.label + " ran " + duration_text(seen.untuned_ns) +
                           " on its default parameters: no tuning profile matched this device",
                       "run `autotune` once on this machine (docs/autotune.md); the runtime then uses its "
                       "profile by itself"});
    }
    if (seen.stale_ns > 0) {
      lines.push_back({"stale-profile", device,
                       static_cast<std::uint64_t>(static_cast<double>(seen.stale_ns) * assumed_retuning_saving),
                       "kernel '" + kernel + "' on " + on.label + " ran " + duration_text(seen.stale_ns) +
                           " on a profile tuned for this device under another driver",
                       "rerun `autotune` for this driver (docs/autotune.md); `alloy-info --profiles` lists the "
                       "stale profiles"});
    }
  }
}

}  // namespace

std::vector<Diagnosis> diagnose(const Trace& trace, const UtilizationReport& report) {
  std::vector<Diagnosis> lines;
  idle_diagnoses(trace, report, lines);
  placement_diagnosis(trace, report, lines);
  kernel_diagnoses(trace, lines);
  const auto floor = static_cast<std::uint64_t>(worth_a_line * static_cast<double>(report.window_ns));
  std::erase_if(lines, [&](const Diagnosis& line) { return line.saving_ns == 0 || line.saving_ns < floor; });
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Diagnosis& a, const Diagnosis& b) { return a.saving_ns > b.saving_ns; });
  if (lines.size() > most_lines) lines.resize(most_lines);
  if (lines.empty()) {
    double busiest = 0;
    for (const DeviceUtilization& device : report.devices) busiest = std::max(busiest, device.busy);
    lines.push_back({"none", std::nullopt, 0,
                     "no cause costs over 1% of the traced time; the busiest device computed " +
                         percent_text(busiest) + " of it",
                     ""});
  }
  return lines;
}

}  // namespace alloy::detail
