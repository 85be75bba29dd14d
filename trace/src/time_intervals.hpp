// Sets of time as sorted, disjoint half-open intervals, for measuring how
// lanes overlap and what covers an idle gap (internal to the runtime).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace alloy::detail {

class TimeIntervals {
 public:
  using Interval = std::pair<std::uint64_t, std::uint64_t>;  ///< [first, second)

  TimeIntervals() = default;
  /// Any intervals, overlapping or not, in any order; empty ones are dropped.
  static TimeIntervals of(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end());
    TimeIntervals merged;
    for (const Interval& interval : intervals) {
      if (interval.second <= interval.first) continue;
      if (!merged.parts_.empty() && interval.first <= merged.parts_.back().second) {
        merged.parts_.back().second = std::max(merged.parts_.back().second, interval.second);
      } else {
        merged.parts_.push_back(interval);
      }
    }
    return merged;
  }

  const std::vector<Interval>& parts() const { return parts_; }
  bool empty() const { return parts_.empty(); }

  std::uint64_t length() const {
    std::uint64_t total = 0;
    for (const Interval& part : parts_) total += part.second - part.first;
    return total;
  }

  TimeIntervals intersect(const TimeIntervals& other) const {
    TimeIntervals common;
    auto a = parts_.begin();
    auto b = other.parts_.begin();
    while (a != parts_.end() && b != other.parts_.end()) {
      const std::uint64_t first = std::max(a->first, b->first);
      const std::uint64_t second = std::min(a->second, b->second);
      if (first < second) common.parts_.push_back({first, second});
      (a->second < b->second) ? ++a : ++b;
    }
    return common;
  }

  /// What of [from, to) these intervals leave uncovered.
  TimeIntervals complement_within(std::uint64_t from, std::uint64_t to) const {
    TimeIntervals gaps;
    std::uint64_t at = from;
    for (const Interval& part : parts_) {
      if (part.second <= at) continue;
      if (part.first >= to) break;
      if (part.first > at) gaps.parts_.push_back({at, part.first});
      at = std::max(at, part.second);
    }
    if (at < to) gaps.parts_.push_back({at, to});
    return gaps;
  }

  TimeIntervals minus(const TimeIntervals& other) const {
    TimeIntervals left;
    for (const Interval& part : parts_) {
      const TimeIntervals pieces = other.complement_within(part.first, part.second);
      left.parts_.insert(left.parts_.end(), pieces.parts_.begin(), pieces.parts_.end());
    }
    return left;
  }

 private:
  std::vector<Interval> parts_;
};

}  // namespace alloy::detail
