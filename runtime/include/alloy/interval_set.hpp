// Sets of byte ranges: which parts of a buffer a replica holds valid data for.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

namespace alloy {

/// A half-open byte range [begin, end).
struct ByteRange {
  std::size_t begin = 0;
  std::size_t end = 0;

  std::size_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
  bool overlaps(const ByteRange& other) const { return begin < other.end && other.begin < end; }
  bool operator==(const ByteRange&) const = default;
};

/// Disjoint, non-adjacent ranges, kept merged. Not thread-safe.
class IntervalSet {
 public:
  void add(ByteRange range);
  void remove(ByteRange range);
  void clear() { ranges_.clear(); }

  bool contains(ByteRange range) const;
  /// The parts of `range` not in the set, in order.
  std::vector<ByteRange> missing(ByteRange range) const;
  std::vector<ByteRange> ranges() const;
  bool empty() const { return ranges_.empty(); }

 private:
  std::map<std::size_t, std::size_t> ranges_;  // begin -> end
};

}  // namespace alloy
