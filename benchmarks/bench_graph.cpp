// Per-task overhead of the executor against raw queue launches, on the first
// device (PoCL in CI). Each case reports "us_per_task".
//
//   build/default/bin/bench_graph --benchmark_format=json
#include <benchmark/benchmark.h>

#include "alloy/alloy.hpp"
#include "embedded/conformance_source.hpp"

namespace {

constexpr int tasks = 10'000;

alloy::Runtime& runtime() {
  static alloy::Runtime shared;
  return shared;
}

alloy::Device& device() {
  if (runtime().devices().empty()) throw alloy::Error("bench_graph: no device; run alloy-info");
  return *runtime().devices().front();
}

const alloy::ProgramSource conformance{"conformance.cl",
                                       std::string(alloy_kernels::conformance_source), ""};

alloy::ExecutorOptions one_device() {
  alloy::ExecutorOptions options;
  options.devices = {&device()};
  return options;
}

void report_per_task(benchmark::State& state) {
  // Invert a rate of tasks per second: microseconds per task.
  state.counters["us_per_task"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * tasks / 1e6,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

alloy::Graph empty_kernels() {
  alloy::Graph graph;
  for (int i = 0; i < tasks; ++i) graph.kernel(conformance, "empty", {alloy::Extent(1)}, {});
  return graph;
}

/// The baseline: empty kernels straight onto one queue, one finish at the end.
void raw_enqueue(benchmark::State& state) {
  auto kernel = runtime().program(device(), conformance)->kernel("empty");
  auto queue = device().create_queue();
  for (auto _ : state) {
    for (int i = 0; i < tasks; ++i) queue->launch(*kernel, {alloy::Extent(1)});
    queue->finish();
  }
  report_per_task(state);
}

/// The same kernels as independent graph tasks, graph built beforehand.
void graph_kernels(benchmark::State& state) {
  const alloy::Graph graph = empty_kernels();
  alloy::Executor executor(runtime(), one_device());
  executor.run(graph);  // compiles and warms up
  executor.wait();
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

/// Each kernel reads and writes the same buffer: a dependent chain.
void chain_kernels(benchmark::State& state) {
  alloy::Buffer<int> data(64);
  alloy::Graph graph;
  for (int i = 0; i < tasks; ++i) {
    graph.kernel(conformance, "add_to_range", {alloy::Extent(64)}, {0, 64, 1, alloy::read_write(data)});
  }
  alloy::Executor executor(runtime(), one_device());
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

void host_fanout(benchmark::State& state) {
  alloy::Graph graph;
  for (int i = 0; i < tasks; ++i) graph.host({}, [] {});
  alloy::Executor executor(runtime(), one_device());
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

void host_chain(benchmark::State& state) {
  alloy::Buffer<int> data(1);
  alloy::Graph graph;
  for (int i = 0; i < tasks; ++i) graph.host({alloy::read_write(data)}, [&data] { ++data.host()[0]; });
  alloy::Executor executor(runtime(), one_device());
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

/// Building the graph and running it once, in a fresh executor, each time:
/// what replay (graph_kernels) is measured against.
void first_run(benchmark::State& state) {
  for (auto _ : state) {
    const alloy::Graph graph = empty_kernels();
    alloy::Executor executor(runtime(), one_device());
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

void replay(benchmark::State& state) { graph_kernels(state); }

}  // namespace

BENCHMARK(raw_enqueue)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(graph_kernels)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(chain_kernels)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(host_fanout)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(host_chain)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(first_run)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(replay)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
