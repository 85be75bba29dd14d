// Placement and issue order: earliest finish time from the performance
// model, calibration of unmeasured kernels, priorities and critical paths.
#include "embedded/conformance_source.hpp"
#include "replicas.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

ExecutorOptions two_devices(SchedulingPolicy policy, bool deterministic) {
  ExecutorOptions options;
  options.devices = {selected_devices()[0], selected_devices()[1]};
  options.policy = policy;
  options.deterministic = deterministic;
  return options;
}

/// Adds `value` to a 64-element slice: independent tasks when slices differ.
TaskId add_to_slice(Graph& graph, Buffer<int>& data, int slice, int value, TaskOptions options = {}) {
  return graph.kernel(conformance, "add_to_range", {Extent(64)},
                      {slice * 64, 64, value, read_write(data.slice(slice * 64, 64))},
                      std::move(options));
}

/// Which of the executor's devices holds the valid bytes of `buffer`.
template <class T>
std::size_t device_holding(const Executor& executor, const Buffer<T>& buffer) {
  for (std::size_t d = 0; d < executor.devices().size(); ++d) {
    if (valid_on(*buffer.storage(), executor.devices()[d], {0, buffer.size() * sizeof(T)})) {
      return d;
    }
  }
  return executor.devices().size();
}

}  // namespace

TEST_CASE("Executor.Scheduling.earliest_finish_time_follows_the_model") {
  if (!have_devices(2)) return;
  Executor executor(runtime(), two_devices(SchedulingPolicy::earliest_finish_time, true));
  Buffer<int> data(64 * 8);
  Graph graph;
  for (int slice = 0; slice < 8; ++slice) add_to_slice(graph, data, slice, slice + 1);
  // Device 0 is three times as fast for this kernel: of 8 equal tasks it
  // should take 6 (finishing at 6 units) and device 1 two (at 6 units).
  const std::uint64_t key = graph.kernel_key({0});
  executor.performance_model().record_kernel(key, 0, 64, 1e-3);
  executor.performance_model().record_kernel(key, 1, 64, 3e-3);
  executor.run(graph);
  executor.synchronize(data);
  executor.wait();
  CHECK(executor.tasks_per_device() == std::vector<std::size_t>{6, 2});
  for (int slice = 0; slice < 8; ++slice) {
    for (int i = 0; i < 64; ++i) REQUIRE(data.host()[slice * 64 + i] == slice + 1);
  }
}

TEST_CASE("Executor.Scheduling.earliest_finish_time_counts_missing_inputs") {
  if (!have_devices(2)) return;
  Executor executor(runtime(), two_devices(SchedulingPolicy::earliest_finish_time, true));
  Buffer<int> big(1 << 20);
  Buffer<int> out(64);
  Graph graph;
  TaskOptions on_second;
  on_second.device = 1;
  graph.fill(big.whole(), 2, on_second);  // the input now lives on device 1
  const TaskId use = graph.kernel(conformance, "scale_offset", {Extent(64)},
                                  {64, 3, 0, read(big), write(out)});
  // Device 0 computes a little faster but would first need 4 MiB moved.
  const std::uint64_t key = graph.kernel_key(use);
  executor.performance_model().record_kernel(key, 0, 64, 1e-6);
  executor.performance_model().record_kernel(key, 1, 64, 2e-6);
  executor.run(graph);
  executor.synchronize(out);
  executor.wait();
  CHECK(executor.tasks_per_device() == std::vector<std::size_t>{0, 2});
  for (int value : out.host()) REQUIRE(value == 6);
}

TEST_CASE("Executor.Scheduling.unmeasured_kernels_are_measured_on_every_device") {
  if (!have_devices(2)) return;
  Executor executor(runtime(), two_devices(SchedulingPolicy::earliest_finish_time, false));
  Buffer<int> data(64 * 32);
  Graph graph;
  for (int slice = 0; slice < 32; ++slice) add_to_slice(graph, data, slice, 1);
  executor.run(graph);
  executor.wait();
  const std::uint64_t key = graph.kernel_key({0});
  for (std::size_t d = 0; d < 2; ++d) {
    CAPTURE(d);
    CHECK(executor.tasks_per_device()[d] > 0);
    CHECK(executor.performance_model().kernel_samples(key, d, 64) > 0);
    CHECK(executor.performance_model().kernel_seconds(key, d, 64).value_or(-1) > 0);
  }
}

TEST_CASE("Executor.Scheduling.wait_returns_with_every_kernel_time_recorded") {
  if (!have_devices(1)) return;
  // The times are recorded by the completion thread once each kernel's
  // event is done; wait() returns after that, not just after the events.
  // Below 16 launches of a kernel every one is sampled: kept, or rejected
  // as an outlier once 3 are kept. rejected() also counts transfers, so
  // the sum is at least the number of kernels once every callback has run.
  constexpr int tasks = 12;
  for (int attempt = 0; attempt < 20; ++attempt) {
    CAPTURE(attempt);
    ExecutorOptions options;
    options.devices = {selected_devices()[0]};
    options.policy = SchedulingPolicy::earliest_finish_time;
    Executor executor(runtime(), options);
    Buffer<int> data(64 * tasks);
    Graph graph;
    for (int slice = 0; slice < tasks; ++slice) add_to_slice(graph, data, slice, 1);
    executor.run(graph);
    executor.wait();
    const std::uint64_t key = graph.kernel_key({0});
    const PerformanceModel& model = executor.performance_model();
    REQUIRE(model.kernel_samples(key, 0, 64) >= PerformanceModel::min_samples);
    REQUIRE(model.kernel_samples(key, 0, 64) + model.rejected() >= tasks);
  }
}

TEST_CASE("Executor.Scheduling.higher_priority_is_issued_first") {
  if (!have_devices(2)) return;
  // Round robin hands devices out in issue order, so where each buffer ends
  // up shows which task was issued first.
  for (const bool prioritized : {false, true}) {
    CAPTURE(prioritized);
    Executor executor(runtime(), two_devices(SchedulingPolicy::round_robin, true));
    Buffer<int> first(64);
    Buffer<int> second(64);
    Graph graph;
    graph.fill(first.whole(), 1);
    TaskOptions urgent;
    if (prioritized) urgent.priority = 10;
    graph.fill(second.whole(), 2, urgent);
    executor.run(graph);
    executor.wait();
    CHECK(device_holding(executor, second) == (prioritized ? 0u : 1u));
    CHECK(device_holding(executor, first) == (prioritized ? 1u : 0u));
  }
}

TEST_CASE("Executor.Scheduling.longest_critical_path_is_issued_first") {
  if (!have_devices(2)) return;
  Executor executor(runtime(), two_devices(SchedulingPolicy::round_robin, true));
  Buffer<int> alone(64);
  Buffer<int> chain(64);
  Graph graph;
  graph.fill(alone.whole(), 1);   // task 0: nothing after it
  graph.fill(chain.whole(), 2);   // task 1: heads a chain of two
  graph.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(chain)});
  executor.run(graph);
  executor.synchronize(chain);
  executor.wait();
  // Task 1 goes first (device 0), then task 0 (device 1) before task 2 (device 0).
  CHECK(device_holding(executor, alone) == 1);
  CHECK(device_holding(executor, chain) == 0);
  for (int value : chain.host()) REQUIRE(value == 3);
}

}  // namespace alloy::test

namespace alloy::test {

TEST_CASE("Executor.Scheduling.policy_per_graph_and_per_task") {
  if (!have_devices(2)) return;
  Executor executor(runtime(), two_devices(SchedulingPolicy::round_robin, true));
  Buffer<int> data(64 * 9);
  Graph graph;
  for (int slice = 0; slice < 8; ++slice) add_to_slice(graph, data, slice, 1);
  const std::uint64_t key = graph.kernel_key({0});
  executor.performance_model().record_kernel(key, 0, 64, 1e-3);
  executor.performance_model().record_kernel(key, 1, 64, 3e-3);
  // Round robin would split 4/4; the graph's policy splits by predicted finish.
  executor.run(graph, SchedulingPolicy::earliest_finish_time);
  executor.wait();
  CHECK(executor.tasks_per_device() == std::vector<std::size_t>{6, 2});
  // One task with its own policy: device 0 is free at 6 units, device 1 at 6,
  // and device 0 finishes it first (7 against 9).
  TaskOptions predicted;
  predicted.policy = SchedulingPolicy::earliest_finish_time;
  executor.kernel(conformance, "add_to_range", {Extent(64)},
                  {8 * 64, 64, 1, read_write(data.slice(8 * 64, 64))}, predicted);
  executor.synchronize(data);
  executor.wait();
  CHECK(executor.tasks_per_device() == std::vector<std::size_t>{7, 2});
  for (int value : data.host()) REQUIRE(value == 1);
}

}  // namespace alloy::test
