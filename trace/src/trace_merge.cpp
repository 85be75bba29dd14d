// Several processes' traces (MPI ranks, say) as one.
#include <algorithm>

#include "alloy/error.hpp"
#include "alloy/trace_file.hpp"

namespace alloy {

Trace merge_traces(const std::vector<Trace>& traces, const std::vector<std::string>& labels) {
  if (labels.size() != traces.size()) {
    throw InvalidArgument("merge_traces: " + std::to_string(traces.size()) + " traces but " +
                          std::to_string(labels.size()) + " labels; give one label per trace");
  }
  std::uint64_t earliest = 0;
  for (const Trace& trace : traces) {
    if (trace.origin_unix_ns != 0 && (earliest == 0 || trace.origin_unix_ns < earliest)) earliest = trace.origin_unix_ns;
  }
  Trace merged;
  merged.origin_unix_ns = earliest;
  std::uint64_t task_base = 0;  // each trace's task ids move past the previous ones'
  for (std::size_t t = 0; t < traces.size(); ++t) {
    const Trace& trace = traces[t];
    const std::size_t device_base = merged.devices.size();
    for (TraceDevice device : trace.devices) {
      device.label = labels[t] + ": " + device.label;
      merged.devices.push_back(std::move(device));
    }
    const std::uint64_t shift = trace.origin_unix_ns != 0 && earliest != 0 ? trace.origin_unix_ns - earliest : 0;
    std::uint64_t last_task = 0;
    for (TraceSlice slice : trace.slices) {
      if (slice.device) {
        *slice.device += device_base;
      } else {
        slice.lane = labels[t] + " " + slice.lane;
      }
      if (slice.task) {
        last_task = std::max(last_task, *slice.task + 1);
        *slice.task += task_base;
      }
      for (std::uint64_t& before : slice.after) before += task_base;
      for (std::uint64_t* time : {&slice.start_ns, &slice.end_ns, &slice.enqueued_ns, &slice.run_submitted_ns}) {
        *time += shift;
      }
      merged.slices.push_back(std::move(slice));
    }
    task_base += last_task;
  }
  std::stable_sort(merged.slices.begin(), merged.slices.end(),
                   [](const TraceSlice& a, const TraceSlice& b) { return a.start_ns < b.start_ns; });
  std::uint64_t id = 1;
  for (TraceSlice& slice : merged.slices) slice.id = id++;
  return merged;
}

}  // namespace alloy
