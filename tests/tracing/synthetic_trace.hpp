// Traces written by hand, in microseconds, for reports with known answers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloy/trace.hpp"

namespace alloy::test {

class SyntheticTrace {
 public:
  /// Devices with one compute lane, copy-in and copy-out.
  explicit SyntheticTrace(std::size_t devices, std::uint32_t compute_units = 4) {
    for (std::size_t d = 0; d < devices; ++d) {
      trace_.devices.push_back({"test:" + std::to_string(d), compute_units, 2, {"compute 0", "copy-in", "copy-out"}});
    }
  }

  /// A slice of task `task` from `start` to `end` us; enqueued and its run
  /// submitted at its start unless set after.
  TraceSlice& add(std::uint64_t task, TraceKind kind, std::optional<std::size_t> device, std::uint64_t start,
                  std::uint64_t end, std::vector<std::uint64_t> after = {}) {
    TraceSlice slice;
    slice.id = trace_.slices.size() + 1;
    slice.task = task;
    slice.kind = kind;
    slice.device = device;
    slice.name = "task " + std::to_string(task);
    slice.lane = !device                         ? "host worker 0"
                 : kind == TraceKind::kernel     ? "compute 0"
                 : kind == TraceKind::copy_out   ? "copy-out"
                                                 : "copy-in";
    slice.start_ns = start * 1000;
    slice.end_ns = end * 1000;
    slice.enqueued_ns = slice.run_submitted_ns = slice.start_ns;
    slice.after = std::move(after);
    if (kind == TraceKind::kernel) {
      slice.kernel = "k" + std::to_string(task);
      slice.profile_match = "exact";
      slice.policy = "round_robin";
      slice.global_size = "1024";
    }
    trace_.slices.push_back(std::move(slice));
    return trace_.slices.back();
  }
  TraceSlice& kernel(std::uint64_t task, std::size_t device, std::uint64_t start, std::uint64_t end,
                     std::vector<std::uint64_t> after = {}) {
    return add(task, TraceKind::kernel, device, start, end, std::move(after));
  }

  /// Task `task` held back from `device` from `start` to `end` us by a
  /// background bound of `commands` and `bound_us` of predicted work, on
  /// the device's "held back" lane (added at the first).
  TraceSlice& held_back(std::uint64_t task, std::size_t device, std::uint64_t start, std::uint64_t end,
                        std::uint32_t commands, std::uint64_t bound_us) {
    std::vector<std::string>& lanes = trace_.devices.at(device).lanes;
    if (std::find(lanes.begin(), lanes.end(), "held back") == lanes.end()) lanes.push_back("held back");
    TraceSlice& held = add(task, TraceKind::held_back, device, start, end);
    held.lane = "held back";
    held.bound_commands = commands;
    held.bound_ns = bound_us * 1000;
    return held;
  }

  TraceDevice& device(std::size_t d) { return trace_.devices.at(d); }

  /// Sorted by start, as the runtime and the reader keep them.
  Trace trace() const {
    Trace sorted = trace_;
    std::stable_sort(sorted.slices.begin(), sorted.slices.end(),
                     [](const TraceSlice& a, const TraceSlice& b) { return a.start_ns < b.start_ns; });
    return sorted;
  }

 private:
  Trace trace_;
};

inline constexpr std::uint64_t us = 1000;

}  // namespace alloy::test
