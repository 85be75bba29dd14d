// What a Graph holds: its tasks, their edges, and what links a run of it to
// earlier work (internal to the runtime).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "alloy/graph.hpp"
#include "dependency_tracker.hpp"
#include "task.hpp"

namespace alloy::detail {

struct GraphData {
  std::vector<Task> tasks;
  /// Per task, the tasks of this graph it follows, inferred and explicit:
  /// sorted, without repeats. Inferred once, as tasks are added.
  std::vector<std::vector<TaskId>> dependencies;
  /// Per task, the explicit ones alone (TaskOptions::after, Graph::order):
  /// a failure travels along these whatever bytes the tasks touch.
  std::vector<std::vector<TaskId>> ordered_after;
  /// The graph's first and last accesses per byte range.
  DependencyTracker tracker;
  /// Per task, the longest chain of tasks from it to the end of the graph,
  /// itself included; current only in snapshots.
  std::vector<std::uint32_t> critical_paths;
  bool critical_paths_current = false;

  struct SharedSource {
    std::shared_ptr<const ProgramSource> source;
    std::uint64_t hash;  ///< of its text, options and name
  };
  /// One shared copy per distinct program the graph's kernels use.
  std::vector<SharedSource> sources;
  /// One shared copy per distinct tunable kernel, by description_hash().
  std::vector<std::pair<std::string, std::shared_ptr<const TunableKernel>>> tunables;
};

/// The graph as it is now, with its critical paths, shared with the graph
/// until the graph changes (a change then copies): an executor keeps this
/// while the run is in flight, and a replay of an unchanged graph shares it.
std::shared_ptr<const GraphData> snapshot(const Graph& graph);
/// The graph's data, which the graph gives up; for the executor's one-task
/// calls, which own the graph they build.
std::shared_ptr<GraphData> take(Graph&& graph);

}  // namespace alloy::detail
