// Which earlier tasks a new access conflicts with (internal to the runtime).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "alloy/buffer.hpp"
#include "alloy/graph.hpp"

namespace alloy::detail {

struct Task;

/// Sorts task ids and drops repeats: the form every edge list is kept in.
void sort_unique(std::vector<TaskId>& ids);

/// Per buffer, which task last wrote each byte range and which tasks read it
/// since: a new access depends on exactly those it conflicts with (read after
/// write, write after read, write after write).
///
/// A Graph keeps one while it is built; it then also knows, per byte range,
/// the graph's first accesses. The executor keeps one across submissions and
/// links a graph run to earlier work through the graph's tracker (link_run)
/// in time proportional to the byte ranges the graph touches, not its tasks.
class DependencyTracker {
 public:
  /// Records every access of `task`, which gets the id `id`, and returns the
  /// tasks it must follow: sorted, without repeats or itself.
  /// InvalidArgument, with nothing recorded, if an access names no buffer or
  /// bytes outside it.
  std::vector<TaskId> record_task(const Task& task, TaskId id);

  /// `later` depends on `earlier`: `later` counts from the run's first task.
  using Link = std::function<void(TaskId later, TaskId earlier)>;
  /// Records a run of `graph`'s tasks whose ids start at `first`, as if its
  /// tasks were recorded one by one: the graph's first accesses of each byte
  /// range are linked to the conflicting tasks recorded here before (edges
  /// within the graph are the graph's own, so only these are reported).
  void link_run(const DependencyTracker& graph, std::uint64_t first, const Link& link);

 private:
  struct Segment {
    std::size_t end = 0;
    std::optional<TaskId> writer;
    std::vector<TaskId> readers;  // since the last write
    // What a run of the graph owning this tracker links to earlier work:
    // its first write, and the reads before it (all reads when none).
    std::optional<TaskId> first_writer;
    std::vector<TaskId> readers_before_first_write;
  };
  using Segments = std::map<std::size_t, Segment>;  // begin -> segment, no gaps

  /// Records one access, appending the tasks it conflicts with.
  void record(const Access& access, TaskId task, std::vector<TaskId>& dependencies);
  /// The segments of the buffer with `storage_id` and `size` bytes.
  Segments& segments_of(std::uint64_t storage_id, std::size_t size);
  /// Splits segments so that `at` is a segment boundary.
  static void split(Segments& segments, std::size_t at);

  std::map<std::uint64_t, Segments> buffers_;  // by storage id
};

}  // namespace alloy::detail
