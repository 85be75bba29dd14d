// Conflicts between buffer accesses, per byte range.
#include "dependency_tracker.hpp"

#include <algorithm>

#include "alloy/error.hpp"
#include "task.hpp"

namespace alloy::detail {
namespace {

TaskId shifted(TaskId id, std::uint64_t by) { return {id.index + by}; }

void check_accesses(const Task& task, TaskId id) {
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
}

}  // namespace

void sort_unique(std::vector<TaskId>& ids) {
  std::sort(ids.begin(), ids.end(), [](TaskId a, TaskId b) { return a.index < b.index; });
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

void DependencyTracker::split(Segments& segments, std::size_t at) {
  auto it = segments.upper_bound(at);
  if (it == segments.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  Segment tail = it->second;
  it->second.end = at;
  segments.emplace(at, std::move(tail));
}

DependencyTracker::Segments& DependencyTracker::segments_of(std::uint64_t storage_id,
                                                            std::size_t size) {
  Segments& segments = buffers_[storage_id];
  if (segments.empty()) segments.emplace(0, Segment{size, {}, {}, {}, {}});
  return segments;
}

void DependencyTracker::record(const Access& access, TaskId task, std::vector<TaskId>& dependencies) {
  Segments& segments = segments_of(access.slice.storage->id(), access.slice.storage->size());
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
      if (!segment.first_writer) {
        segment.first_writer = task;
        segment.readers_before_first_write = segment.readers;
      }
      segment.writer = task;
      segment.readers.clear();
    } else {
      segment.readers.push_back(task);
    }
  }
}

std::vector<TaskId> DependencyTracker::record_task(const Task& task, TaskId id) {
  check_accesses(task, id);
  std::vector<TaskId> dependencies;
  for (const Access& access : task.accesses) record(access, id, dependencies);
  sort_unique(dependencies);
  // A task that reads and writes the same slice through two accesses must
  // not depend on itself.
  std::erase(dependencies, id);
  return dependencies;
}

void DependencyTracker::link_run(const DependencyTracker& graph, std::uint64_t first,
                                 const Link& link) {
  for (const auto& [storage_id, theirs] : graph.buffers_) {
    Segments& mine = segments_of(storage_id, std::prev(theirs.end())->second.end);
    for (auto g = theirs.begin(); g != theirs.end(); ++g) {
      const Segment& run = g->second;
      if (!run.writer && run.readers.empty()) continue;  // the graph does not touch these bytes
      split(mine, g->first);
      split(mine, run.end);
      const std::vector<TaskId>& first_readers =
          run.first_writer ? run.readers_before_first_write : run.readers;
      for (auto m = mine.lower_bound(g->first); m != mine.end() && m->first < run.end; ++m) {
        Segment& earlier = m->second;
        if (earlier.writer) {
          for (TaskId reader : first_readers) link(reader, *earlier.writer);  // RAW
        }
        if (run.first_writer) {
          if (earlier.writer) link(*run.first_writer, *earlier.writer);  // WAW
          for (TaskId reader : earlier.readers) link(*run.first_writer, reader);  // WAR
        }
        // Afterwards these bytes stand as the run leaves them.
        if (run.writer) {
          earlier.writer = shifted(*run.writer, first);
          earlier.readers.clear();
        }
        for (TaskId reader : run.readers) earlier.readers.push_back(shifted(reader, first));
      }
    }
  }
}

}  // namespace alloy::detail
