// Unions of intervals, and their intersection.
#include "time_split.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace jacobi {
namespace {

using Intervals = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

/// Sorted, disjoint.
Intervals merged(Intervals intervals) {
  std::sort(intervals.begin(), intervals.end());
  Intervals out;
  for (const auto& [start, end] : intervals) {
    if (!out.empty() && start <= out.back().second) {
      out.back().second = std::max(out.back().second, end);
    } else {
      out.emplace_back(start, end);
    }
  }
  return out;
}

std::uint64_t length(const Intervals& intervals) {
  std::uint64_t total = 0;
  for (const auto& [start, end] : intervals) total += end - start;
  return total;
}

std::uint64_t intersection(const Intervals& a, const Intervals& b) {
  std::uint64_t total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::uint64_t start = std::max(a[i].first, b[j].first);
    const std::uint64_t end = std::min(a[i].second, b[j].second);
    if (start < end) total += end - start;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return total;
}

}  // namespace

TimeSplit split_time(const alloy::Trace& trace) {
  Intervals kernels, messages;
  for (const alloy::TraceSlice& slice : trace.slices) {
    if (slice.kind == alloy::TraceKind::kernel) kernels.emplace_back(slice.start_ns, slice.end_ns);
    if (slice.kind == alloy::TraceKind::async) messages.emplace_back(slice.start_ns, slice.end_ns);
  }
  kernels = merged(std::move(kernels));
  messages = merged(std::move(messages));
  return {length(kernels) / 1e6, length(messages) / 1e6, intersection(kernels, messages) / 1e6};
}

}  // namespace jacobi
