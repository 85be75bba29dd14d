// Merged range bookkeeping for buffer coherence.
#include "alloy/interval_set.hpp"

#include <algorithm>

namespace alloy {

void IntervalSet::add(ByteRange range) {
  if (range.empty()) return;
  // Absorb every range that overlaps or touches [begin, end).
  auto it = ranges_.upper_bound(range.begin);
  if (it != ranges_.begin() && std::prev(it)->second >= range.begin) --it;
  while (it != ranges_.end() && it->first <= range.end) {
    range.begin = std::min(range.begin, it->first);
    range.end = std::max(range.end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(range.begin, range.end);
}

void IntervalSet::remove(ByteRange range) {
  if (range.empty()) return;
  auto it = ranges_.upper_bound(range.begin);
  if (it != ranges_.begin() && std::prev(it)->second > range.begin) --it;
  while (it != ranges_.end() && it->first < range.end) {
    const ByteRange existing{it->first, it->second};
    it = ranges_.erase(it);
    if (existing.begin < range.begin) ranges_.emplace(existing.begin, range.begin);
    if (existing.end > range.end) ranges_.emplace(range.end, existing.end);
  }
}

bool IntervalSet::contains(ByteRange range) const {
  if (range.empty()) return true;
  auto it = ranges_.upper_bound(range.begin);
  if (it == ranges_.begin()) return false;
  --it;
  return it->first <= range.begin && it->second >= range.end;
}

std::vector<ByteRange> IntervalSet::missing(ByteRange range) const {
  std::vector<ByteRange> gaps;
  std::size_t cursor = range.begin;
  auto it = ranges_.upper_bound(range.begin);
  if (it != ranges_.begin()) --it;
  for (; it != ranges_.end() && it->first < range.end && cursor < range.end; ++it) {
    if (it->second <= cursor) continue;
    if (it->first > cursor) gaps.push_back({cursor, it->first});
    cursor = std::max(cursor, it->second);
  }
  if (cursor < range.end) gaps.push_back({cursor, range.end});
  return gaps;
}

std::vector<ByteRange> IntervalSet::ranges() const {
  std::vector<ByteRange> all;
  for (const auto& [begin, end] : ranges_) all.push_back({begin, end});
  return all;
}

}  // namespace alloy
