// Which earlier tasks a new access conflicts with (internal to the runtime).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "alloy/buffer.hpp"
#include "alloy/graph.hpp"

namespace alloy::detail {

/// Per buffer, which task last wrote each byte range and which tasks read it
/// since: a new access depends on exactly those it conflicts with (read after
/// write, write after read, write after write). Used by Graph while it is
/// built and by Executor across submissions.
class DependencyTracker {
 public:
  /// Records every access of `task`, which gets the id `id`, and adds the
  /// tasks it must follow to its dependencies: sorted, without repeats or
  /// itself. InvalidArgument, with nothing recorded, if an access names no
  /// buffer or bytes outside it.
  void record_task(Task& task, TaskId id);

 private:
  /// Records one access, appending the tasks it conflicts with.
  void record(const Access& access, TaskId task, std::vector<TaskId>& dependencies);

  struct Segment {
    std::size_t end = 0;
    std::optional<TaskId> writer;
    std::vector<TaskId> readers;  // since the last write
  };
  using Segments = std::map<std::size_t, Segment>;  // begin -> segment, no gaps

  /// Splits segments so that `at` is a segment boundary.
  static void split(Segments& segments, std::size_t at);

  std::map<std::uint64_t, Segments> buffers_;  // by storage id
};

}  // namespace alloy::detail
