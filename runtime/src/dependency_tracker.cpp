// Conflicts between buffer accesses, per byte range.
#include "dependency_tracker.hpp"

#include <algorithm>

#include "alloy/error.hpp"

namespace alloy::detail {

void DependencyTracker::split(Segments& segments, std::size_t at) {
  auto it = segments.upper_bound(at);
  if (it == segments.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  Segment tail = it->second;
  it->second.end = at;
  segments.emplace(at, std::move(tail));
}

void DependencyTracker::record(const Access& access, TaskId task, std::vector<TaskId>& dependencies) {
  Segments& segments = buffers_[access.slice.storage->id()];
  if (segments.empty()) segments.emplace(0, Segment{access.slice.storage->size(), {}, {}});
  const ByteRange range = access.slice.range;
  if (range.empty()) return;
  split(segments, range.begin);
  split(segments, range.end);
  for (auto it = segments.lower_bound(range.begin); it != segments.end() && it->first < range.end;
       ++it) {
    Segment& segment = it->second;
    if (segment.writer) dependencies.push_back(*segment.writer);  // RAW, WAW
    if (writes(access.mode)) {
      dependencies.insert(dependencies.end(), segment.readers.begin(), segment.readers.end());  // WAR
      segment.writer = task;
      segment.readers.clear();
    } else {
      segment.readers.push_back(task);
    }
  }
}

void DependencyTracker::record_task(Task& task, TaskId id) {
  for (const Access& access : task.accesses) {
    if (!access.slice.storage) throw InvalidArgument(task.label(id) + ": an access names no buffer");
    const ByteRange range = access.slice.range;
    if (range.begin > range.end || range.end > access.slice.storage->size()) {
      throw InvalidArgument(task.label(id) + ": an access names bytes [" + std::to_string(range.begin) +
                            ", " + std::to_string(range.end) + ") of a buffer of " +
                            std::to_string(access.slice.storage->size()) +
                            " bytes; make slices with Buffer::slice, which checks them");
    }
  }
  std::vector<TaskId>& dependencies = task.dependencies;
  for (const Access& access : task.accesses) record(access, id, dependencies);
  std::sort(dependencies.begin(), dependencies.end(),
            [](TaskId a, TaskId b) { return a.index < b.index; });
  dependencies.erase(std::unique(dependencies.begin(), dependencies.end()), dependencies.end());
  // A task that reads and writes the same slice through two accesses must
  // not depend on itself.
  std::erase(dependencies, id);
}

}  // namespace alloy::detail
