// From a trace to busy time, overlap, idle gaps with their causes, and the
// diagnoses ordered by what fixing each would save (docs/tracing.md).
#include <algorithm>
#include <map>
#include <set>

#include "alloy/utilization_report.hpp"
#include "diagnosis.hpp"
#include "time_intervals.hpp"

namespace alloy {
namespace {

using detail::TimeIntervals;

bool on_compute_lane(const TraceSlice& slice) { return slice.lane.rfind("compute", 0) == 0; }

TimeIntervals time_of(const std::vector<const TraceSlice*>& slices) {
  std::vector<TimeIntervals::Interval> intervals;
  intervals.reserve(slices.size());
  for (const TraceSlice* slice : slices) intervals.emplace_back(slice->start_ns, slice->end_ns);
  return TimeIntervals::of(std::move(intervals));
}

/// The tasks each task waits for, and whether one waits for another through
/// a few steps (host task -> copy -> kernel is three).
class Dependencies {
 public:
  explicit Dependencies(const Trace& trace) {
    for (const TraceSlice& slice : trace.slices) {
      if (slice.task) direct_[*slice.task].insert(slice.after.begin(), slice.after.end());
    }
  }

  bool waits_for(std::uint64_t task, std::uint64_t before) const {
    std::set<std::uint64_t> seen;
    std::vector<std::uint64_t> frontier = {task};
    for (unsigned step = 0; step < max_steps && !frontier.empty(); ++step) {
      std::vector<std::uint64_t> next;
      for (std::uint64_t at : frontier) {
        const auto found = direct_.find(at);
        if (found == direct_.end()) continue;
        for (std::uint64_t earlier : found->second) {
          if (earlier == before) return true;
          if (seen.insert(earlier).second) next.push_back(earlier);
        }
      }
      frontier = std::move(next);
    }
    return false;
  }

 private:
  static constexpr unsigned max_steps = 8;
  std::map<std::uint64_t, std::set<std::uint64_t>> direct_;
};

struct DeviceSlices {
  std::vector<const TraceSlice*> compute;  ///< by start
  std::vector<const TraceSlice*> copies;
  std::vector<const TraceSlice*> held_back;
};

/// Splits one idle gap among the causes, each taking what the ones before
/// it left (IdleCause's order).
class GapAttribution {
 public:
  GapAttribution(IdleGap& gap) : gap_(gap), left_(TimeIntervals::of({{gap.start_ns, gap.end_ns}})) {}

  void assign(IdleCause cause, const TimeIntervals& covering) {
    const TimeIntervals covered = left_.intersect(covering);
    gap_.by_cause[static_cast<std::size_t>(cause)] += covered.length();
    left_ = left_.minus(covered);
  }
  void assign_rest(IdleCause cause) {
    gap_.by_cause[static_cast<std::size_t>(cause)] += left_.length();
    left_ = {};
  }

 private:
  IdleGap& gap_;
  TimeIntervals left_;
};

/// Slices by start, to find those overlapping a stretch of time without
/// reading all of them.
class SliceIndex {
 public:
  void add(const TraceSlice& slice) {
    slices_.push_back(&slice);
    longest_ = std::max(longest_, slice.duration_ns());
  }
  void sort() {
    std::stable_sort(slices_.begin(), slices_.end(),
                     [](const TraceSlice* a, const TraceSlice* b) { return a->start_ns < b->start_ns; });
  }
  template <class F>
  void overlapping(std::uint64_t from, std::uint64_t to, F&& f) const {
    const std::uint64_t earliest = from > longest_ ? from - longest_ : 0;
    auto at = std::lower_bound(slices_.begin(), slices_.end(), earliest,
                               [](const TraceSlice* slice, std::uint64_t time) { return slice->start_ns < time; });
    for (; at != slices_.end() && (*at)->start_ns < to; ++at) {
      if ((*at)->end_ns > from) f(**at);
    }
  }

 private:
  std::vector<const TraceSlice*> slices_;
  std::uint64_t longest_ = 0;
};

/// What of [from, to) slices of `index` that `next`'s task waits for
/// cover, leaving out those on `device`.
TimeIntervals awaited(const SliceIndex& index, const Dependencies& dependencies, const TraceSlice& next,
                      std::uint64_t from, std::uint64_t to, std::optional<std::size_t> device) {
  std::vector<const TraceSlice*> found;
  if (!next.task) return {};
  index.overlapping(from, to, [&](const TraceSlice& slice) {
    if (slice.task && slice.device != device && dependencies.waits_for(*next.task, *slice.task)) {
      found.push_back(&slice);
    }
  });
  return time_of(found);
}

/// Host tasks, async operations, and every device's commands; and when
/// kernels were compiled.
struct Indexes {
  SliceIndex host;
  SliceIndex async;
  SliceIndex devices;
  std::vector<const TraceSlice*> compiles;
};

void attribute_gaps(const Indexes& indexes, const Dependencies& dependencies, const DeviceSlices& mine,
                    const TimeIntervals& others_computing, std::size_t device, std::uint64_t window_start,
                    std::uint64_t window_end, DeviceUtilization& utilization) {
  const TimeIntervals compute = time_of(mine.compute);
  const TimeIntervals copies = time_of(mine.copies);
  const TimeIntervals idle = compute.complement_within(window_start, window_end);
  for (const auto& [start, end] : idle.parts()) {
    IdleGap gap{start, end, {}};
    GapAttribution attribution(gap);
    attribution.assign(IdleCause::transfer, copies);
    const auto next = std::lower_bound(mine.compute.begin(), mine.compute.end(), end,
                                       [](const TraceSlice* slice, std::uint64_t time) { return slice->start_ns < time; });
    if (next != mine.compute.end()) {
      const TraceSlice& kernel = **next;
      attribution.assign(IdleCause::host_task, awaited(indexes.host, dependencies, kernel, start, end, device));
      attribution.assign(IdleCause::communication,
                         awaited(indexes.async, dependencies, kernel, start, end, device));
      attribution.assign(IdleCause::other_device,
                         awaited(indexes.devices, dependencies, kernel, start, end, device));
      // Compiling holds up every launch behind it, whichever task it is for.
      attribution.assign(IdleCause::compile, time_of(indexes.compiles));
      // Whichever task was held back: while it was, the device had no work of this job's.
      attribution.assign(IdleCause::held_back, time_of(mine.held_back));
      attribution.assign(IdleCause::submission, TimeIntervals::of({{start, kernel.run_submitted_ns}}));
      if (kernel.others_in_flight > 0) {
        attribution.assign(IdleCause::other_jobs, TimeIntervals::of({{kernel.enqueued_ns, end}}));
      }
      attribution.assign_rest(IdleCause::launch);
    } else {
      attribution.assign(IdleCause::starved, others_computing);
      attribution.assign_rest(IdleCause::finished);
    }
    for (std::size_t c = 0; c < idle_cause_count; ++c) utilization.idle_by_cause[c] += gap.by_cause[c];
    utilization.gaps.push_back(gap);
  }
}

DeviceUtilization utilization_of(const Trace& trace, const Indexes& indexes, const Dependencies& dependencies,
                                 const std::vector<DeviceSlices>& slices, std::size_t device,
                                 std::uint64_t window_start, std::uint64_t window_end) {
  const DeviceSlices& mine = slices[device];
  const double window = static_cast<double>(window_end - window_start);
  const auto fraction = [&](std::uint64_t ns) { return window > 0 ? static_cast<double>(ns) / window : 0.0; };
  DeviceUtilization utilization;
  utilization.label = trace.devices[device].label;
  const TimeIntervals compute = time_of(mine.compute);
  const TimeIntervals copies = time_of(mine.copies);
  utilization.compute_ns = compute.length();
  utilization.busy = fraction(utilization.compute_ns);
  utilization.copy_ns = copies.length();
  utilization.overlap_ns = compute.intersect(copies).length();
  utilization.overlap =
      utilization.copy_ns > 0 ? static_cast<double>(utilization.overlap_ns) / static_cast<double>(utilization.copy_ns) : 0.0;
  for (const std::string& lane : trace.devices[device].lanes) {
    std::vector<const TraceSlice*> on_lane;
    for (const auto* group : {&mine.compute, &mine.copies, &mine.held_back}) {
      for (const TraceSlice* slice : *group) {
        if (slice->lane == lane) on_lane.push_back(slice);
      }
    }
    const std::uint64_t busy = time_of(on_lane).length();
    utilization.lanes.push_back({lane, busy, fraction(busy)});
  }
  std::vector<const TraceSlice*> others;
  for (std::size_t d = 0; d < slices.size(); ++d) {
    if (d != device) others.insert(others.end(), slices[d].compute.begin(), slices[d].compute.end());
  }
  attribute_gaps(indexes, dependencies, mine, time_of(others), device, window_start, window_end, utilization);
  utilization.memory_share = trace.devices[device].memory_share;
  utilization.memory_peak = trace.devices[device].memory_peak;
  for (const TraceSlice* held : mine.held_back) {
    const bool first = utilization.holds++ == 0;
    utilization.tightest_bound_ns = first ? held->bound_ns : std::min(utilization.tightest_bound_ns, held->bound_ns);
    utilization.loosest_bound_ns = std::max(utilization.loosest_bound_ns, held->bound_ns);
  }
  return utilization;
}

std::vector<KernelUtilization> kernels_of(const Trace& trace) {
  std::map<std::pair<std::size_t, std::string>, KernelUtilization> by_kernel;
  for (const TraceSlice& slice : trace.slices) {
    if (slice.kind != TraceKind::kernel || !slice.device) continue;
    KernelUtilization& kernel = by_kernel[{*slice.device, slice.kernel}];
    kernel.kernel = slice.kernel;
    kernel.device = *slice.device;
    // A launch run in slices counts once, and its slices' groups are not its own.
    if (slice.kernel_slice <= 1) ++kernel.launches;
    kernel.total_ns += slice.duration_ns();
    kernel.bytes += slice.bytes;
    kernel.flops += slice.flops;
    kernel.profile_match = slice.profile_match;
    kernel.configuration = slice.configuration;
    if (slice.kernel_slices == 0 && slice.work_groups != 0 &&
        (kernel.work_groups == 0 || slice.work_groups < kernel.work_groups)) {
      kernel.work_groups = slice.work_groups;
    }
  }
  std::vector<KernelUtilization> kernels;
  for (auto& [key, kernel] : by_kernel) {
    const double seconds = static_cast<double>(kernel.total_ns) * 1e-9;
    if (seconds > 0 && kernel.bytes > 0) kernel.bytes_per_second = static_cast<double>(kernel.bytes) / seconds;
    if (seconds > 0 && kernel.flops > 0) kernel.flops_per_second = kernel.flops / seconds;
    kernels.push_back(std::move(kernel));
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelUtilization& a, const KernelUtilization& b) { return a.total_ns > b.total_ns; });
  return kernels;
}

}  // namespace

UtilizationReport analyze(const Trace& trace) {
  UtilizationReport report;
  std::set<std::uint64_t> tasks;
  std::vector<DeviceSlices> slices(trace.devices.size());
  Indexes indexes;
  if (!trace.slices.empty()) report.window_start_ns = trace.slices.front().start_ns;
  std::uint64_t window_end = report.window_start_ns;
  for (const TraceSlice& slice : trace.slices) {
    report.window_start_ns = std::min(report.window_start_ns, slice.start_ns);
    window_end = std::max(window_end, slice.end_ns);
    if (slice.task) tasks.insert(*slice.task);
    if (slice.kind == TraceKind::compile) {
      indexes.compiles.push_back(&slice);
      continue;
    }
    if (slice.kind == TraceKind::held_back) {
      // Time no command ran: not what another device's kernels wait for.
      slices.at(slice.device.value()).held_back.push_back(&slice);
      continue;
    }
    (slice.device ? indexes.devices : slice.kind == TraceKind::async ? indexes.async : indexes.host).add(slice);
    if (!slice.device) continue;
    DeviceSlices& device = slices.at(*slice.device);
    (on_compute_lane(slice) ? device.compute : device.copies).push_back(&slice);
  }
  indexes.host.sort();
  indexes.async.sort();
  indexes.devices.sort();
  for (DeviceSlices& device : slices) {
    std::stable_sort(device.compute.begin(), device.compute.end(),
                     [](const TraceSlice* a, const TraceSlice* b) { return a->start_ns < b->start_ns; });
  }
  report.window_ns = window_end - report.window_start_ns;
  report.tasks = tasks.size();
  const Dependencies dependencies(trace);
  for (std::size_t d = 0; d < trace.devices.size(); ++d) {
    report.devices.push_back(utilization_of(trace, indexes, dependencies, slices, d, report.window_start_ns, window_end));
  }
  std::vector<const TraceSlice*> computing;
  std::vector<const TraceSlice*> in_flight;
  for (const DeviceSlices& device : slices) computing.insert(computing.end(), device.compute.begin(), device.compute.end());
  for (const TraceSlice& slice : trace.slices) {
    if (slice.kind == TraceKind::async) in_flight.push_back(&slice);
  }
  const TimeIntervals communication = time_of(in_flight);
  report.communication_ns = communication.length();
  report.communication_overlap_ns = communication.intersect(time_of(computing)).length();
  report.kernels = kernels_of(trace);
  report.diagnoses = detail::diagnose(trace, report);
  return report;
}

std::string_view to_string(IdleCause cause) {
  switch (cause) {
    case IdleCause::transfer: return "transfers";
    case IdleCause::host_task: return "host tasks";
    case IdleCause::communication: return "communication";
    case IdleCause::other_device: return "another device";
    case IdleCause::compile: return "compiling";
    case IdleCause::held_back: return "yielded to critical work";
    case IdleCause::submission: return "submission";
    case IdleCause::other_jobs: return "waited behind another job's kernels";
    case IdleCause::launch: return "launch gaps";
    case IdleCause::starved: return "starved";
    case IdleCause::finished: return "finished";
  }
  return "?";
}

IdleCause IdleGap::main_cause() const {
  return static_cast<IdleCause>(std::max_element(by_cause.begin(), by_cause.end()) - by_cause.begin());
}

}  // namespace alloy
