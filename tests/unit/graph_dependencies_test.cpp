// Edges inferred from accesses: read-after-write, write-after-read,
// write-after-write, per slice, plus explicit ordering.
#include "alloy/graph.hpp"
#include "graph/graph_data.hpp"  // white-box: what the graph keeps of a task
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

std::vector<std::uint64_t> dependencies_of(const Graph& graph, TaskId id) {
  std::vector<std::uint64_t> indices;
  for (TaskId dependency : graph.dependencies(id)) indices.push_back(dependency.index);
  return indices;
}

void nothing() {}

}  // namespace

TEST_CASE("Unit.Graph.read_after_write") {
  Buffer<int> data(100);
  Graph graph;
  const TaskId writer = graph.host({write(data)}, nothing);
  const TaskId reader = graph.host({read(data)}, nothing);
  CHECK(dependencies_of(graph, writer).empty());
  CHECK(dependencies_of(graph, reader) == std::vector<std::uint64_t>{writer.index});
}

TEST_CASE("Unit.Graph.write_after_read_waits_for_every_reader") {
  Buffer<int> data(100);
  Graph graph;
  const TaskId first = graph.host({read(data)}, nothing);
  const TaskId second = graph.host({read(data)}, nothing);
  const TaskId writer = graph.host({write(data)}, nothing);
  CHECK(dependencies_of(graph, second).empty());  // readers do not order each other
  CHECK(dependencies_of(graph, writer) == std::vector<std::uint64_t>{first.index, second.index});
}

TEST_CASE("Unit.Graph.write_after_write") {
  Buffer<int> data(100);
  Graph graph;
  const TaskId first = graph.fill(data.whole(), 1);
  const TaskId second = graph.fill(data.whole(), 2);
  CHECK(dependencies_of(graph, second) == std::vector<std::uint64_t>{first.index});
}

TEST_CASE("Unit.Graph.slices_conflict_only_when_overlapping") {
  Buffer<float> data(100);
  Graph graph;
  const TaskId low = graph.host({write(data.slice(0, 50))}, nothing);
  const TaskId high = graph.host({write(data.slice(50, 50))}, nothing);
  const TaskId middle = graph.host({read(data.slice(40, 20))}, nothing);
  const TaskId tail = graph.host({read(data.slice(90, 10))}, nothing);
  CHECK(dependencies_of(graph, high).empty());
  CHECK(dependencies_of(graph, middle) == std::vector<std::uint64_t>{low.index, high.index});
  CHECK(dependencies_of(graph, tail) == std::vector<std::uint64_t>{high.index});
  // Overwriting the first half waits for the reader of [40, 60) but not the tail's.
  const TaskId rewrite = graph.host({write(data.slice(0, 50))}, nothing);
  CHECK(dependencies_of(graph, rewrite) == std::vector<std::uint64_t>{low.index, middle.index});
}

TEST_CASE("Unit.Graph.kernel_copy_and_explicit_order") {
  Buffer<float> x(64);
  Buffer<float> y(64);
  Graph graph;
  const TaskId produce = graph.kernel({"k.cl", "", ""}, "scale", {Extent(64)},
                                      {64, 2.0f, read(x), write(y)});
  const TaskId copy = graph.copy(y.whole(), x.whole());
  const TaskId unrelated = graph.host({}, nothing);
  graph.order(produce, unrelated);
  CHECK(dependencies_of(graph, copy) == std::vector<std::uint64_t>{produce.index});
  CHECK(dependencies_of(graph, unrelated) == std::vector<std::uint64_t>{produce.index});
  const detail::KernelWork* kernel = detail::snapshot(graph)->tasks[produce.index].kernel();
  REQUIRE(kernel != nullptr);
  REQUIRE(kernel->args.size() == 4);
  CHECK(std::get<std::size_t>(kernel->args[2]) == 0);  // the first access
  CHECK(std::get<KernelArg>(kernel->args[1]).scalar_type == ScalarType::f32);
  CHECK(graph.label(produce) == "task 0 'scale' (kernel)");
  CHECK_THROWS_AS(graph.kernel_key(copy), InvalidArgument);
  CHECK(graph.kernel_key(produce) == kernel->key);
  CHECK_THROWS_AS(graph.order(copy, produce), InvalidArgument);
  CHECK_THROWS_AS(graph.copy(x.slice(0, 10), y.slice(0, 20)), InvalidArgument);
  CHECK_THROWS_AS(x.slice(60, 10), InvalidArgument);
}

}  // namespace alloy::test
