// A run of a graph linked to earlier work through the graph's first accesses
// (DependencyTracker::link_run) against inferring every edge again, task by
// task: random graphs, the seed printed (ALLOY_TEST_SEED replays it).
#include <algorithm>
#include <random>
#include <set>

#include "alloy/graph.hpp"
#include "graph/dependency_tracker.hpp"
#include "graph/graph_data.hpp"
#include "support/random_seed.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using Edges = std::vector<std::set<std::uint64_t>>;  // per task, what it depends on

std::vector<Access> random_accesses(std::mt19937_64& random, const std::vector<Buffer<std::uint8_t>>& buffers) {
  std::vector<Access> accesses;
  const int count = static_cast<int>(random() % 3);  // a task may touch nothing
  for (int a = 0; a < count; ++a) {
    const Buffer<std::uint8_t>& buffer = buffers[random() % buffers.size()];
    const std::size_t begin = random() % buffer.size();
    const std::size_t length = random() % (buffer.size() - begin + 1);  // empty slices too
    const auto mode = static_cast<AccessMode>(random() % 3);
    accesses.push_back({buffer.slice(begin, length), mode});
  }
  return accesses;
}

detail::Task host_task(std::vector<Access> accesses) {
  return detail::Task{detail::HostWork{}, {}, std::move(accesses)};
}

/// Records `tasks` one by one with ids from `first`, appending their edges.
void record_each(detail::DependencyTracker& tracker, const std::vector<std::vector<Access>>& tasks,
                 std::uint64_t first, Edges& edges) {
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    std::set<std::uint64_t>& into = edges.emplace_back();
    for (TaskId id : tracker.record_task(host_task(tasks[i]), {first + i})) into.insert(id.index);
  }
}

}  // namespace

TEST_CASE("Unit.Graph.replay_links_the_same_edges_as_inferring_each_task") {
  const std::uint64_t seed = random_seed();
  MESSAGE("seed " << seed << " (ALLOY_TEST_SEED replays it)");
  std::mt19937_64 random(seed);
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    std::vector<Buffer<std::uint8_t>> buffers;
    const int buffer_count = 1 + static_cast<int>(random() % 3);
    for (int b = 0; b < buffer_count; ++b) buffers.emplace_back(8 + random() % 40);
    auto random_tasks = [&](int most) {
      std::vector<std::vector<Access>> tasks(random() % (most + 1));
      for (auto& accesses : tasks) accesses = random_accesses(random, buffers);
      return tasks;
    };
    const auto before = random_tasks(8);
    const auto in_graph = random_tasks(10);
    const auto after = random_tasks(4);
    Graph graph;
    for (const auto& accesses : in_graph) graph.host(accesses, [] {});
    const std::shared_ptr<const detail::GraphData> data = detail::snapshot(graph);

    // Reference: every task inferred again, as if submitted one by one;
    // the graph runs twice.
    detail::DependencyTracker reference;
    Edges expected;
    record_each(reference, before, 0, expected);
    record_each(reference, in_graph, before.size(), expected);
    record_each(reference, in_graph, before.size() + in_graph.size(), expected);
    record_each(reference, after, before.size() + 2 * in_graph.size(), expected);

    // Linked: the graph's own edges, plus what link_run reports.
    detail::DependencyTracker linked;
    Edges actual;
    record_each(linked, before, 0, actual);
    for (int run = 0; run < 2; ++run) {
      const std::uint64_t first = before.size() + run * in_graph.size();
      for (std::size_t i = 0; i < in_graph.size(); ++i) {
        std::set<std::uint64_t>& into = actual.emplace_back();
        for (TaskId id : graph.dependencies({i})) into.insert(first + id.index);
      }
      linked.link_run(data->tracker, first, [&](TaskId later, TaskId earlier) {
        actual[first + later.index].insert(earlier.index);
      });
    }
    record_each(linked, after, before.size() + 2 * in_graph.size(), actual);

    REQUIRE(actual.size() == expected.size());
    for (std::size_t task = 0; task < expected.size(); ++task) {
      CAPTURE(task);
      REQUIRE(actual[task] == expected[task]);
    }
  }
}

}  // namespace alloy::test
