// Per-task overhead of the executor against raw queue launches and a plain
// OpenCL enqueue loop, on the first device (PoCL in CI). Each case reports
// "us_per_task", the median of five repetitions with their spread; the
// executor's cases run untraced (traced:0) and recording a trace (traced:1),
// for what self-measurement costs. scripts/compare-bench-graph runs two
// builds' bench_graph in interleaved rounds.
//
//   build/default/bin/bench_graph
//   build/default/bin/bench_graph --benchmark_filter=one_task --benchmark_format=json
#include <benchmark/benchmark.h>

#include <utility>

#include "alloy/alloy.hpp"
#include "bench_graph_common.hpp"
#include "embedded/conformance_source.hpp"

namespace {

using bench::device;
using bench::report_per_task;
using bench::runtime;
using bench::tasks;

const alloy::ProgramSource conformance{"conformance.cl",
                                       std::string(alloy_kernels::conformance_source), ""};

/// The first device; traced when the case's argument is 1.
alloy::ExecutorOptions one_device(const benchmark::State& state) {
  alloy::ExecutorOptions options;
  options.devices = {&device()};
  options.trace = state.range(0) != 0;
  return options;
}

alloy::Graph empty_kernels() {
  alloy::Graph graph;
  for (int i = 0; i < tasks; ++i) graph.kernel(conformance, "empty", {alloy::Extent(1)}, {});
  return graph;
}

/// Empty kernels straight onto one alloy queue, one finish at the end.
void raw_enqueue(benchmark::State& state) {
  auto kernel = runtime().program(device(), conformance)->kernel("empty");
  auto queue = device().create_queue();
  for (auto _ : state) {
    for (int i = 0; i < tasks; ++i) queue->launch(*kernel, {alloy::Extent(1)});
    queue->finish();
  }
  report_per_task(state);
}

/// The same with the queue's timing off, as the executor's lanes run
/// commands nothing measures.
void raw_untimed(benchmark::State& state) {
  auto kernel = runtime().program(device(), conformance)->kernel("empty");
  auto queue = device().create_queue();
  queue->set_timing(false);
  for (auto _ : state) {
    for (int i = 0; i < tasks; ++i) queue->launch(*kernel, {alloy::Extent(1)});
    queue->finish();
  }
  report_per_task(state);
}

/// Independent kernel tasks, the graph built and run each time in a warm
/// executor: building (edges inferred) plus running.
void graph_kernels(benchmark::State& state) {
  alloy::Executor executor(runtime(), one_device(state));
  executor.run(empty_kernels());  // compiles and warms up
  executor.wait();
  for (auto _ : state) {
    executor.run(empty_kernels());
    executor.wait();
  }
  report_per_task(state);
}

/// Each kernel reads and writes the same buffer: a dependent chain, replayed.
void chain_kernels(benchmark::State& state) {
  alloy::Buffer<int> data(64);
  alloy::Graph graph;
  for (int i = 0; i < tasks; ++i) {
    graph.kernel(conformance, "add_to_range", {alloy::Extent(64)}, {0, 64, 1, alloy::read_write(data)});
  }
  alloy::Executor executor(runtime(), one_device(state));
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

void host_fanout(benchmark::State& state) {
  alloy::Graph graph;
  for (int i = 0; i < tasks; ++i) graph.host({}, [] {});
  alloy::Executor executor(runtime(), one_device(state));
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
  alloy::Executor executor(runtime(), one_device(state));
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

/// Building the graph and running it once, in a fresh executor, each time:
/// what replay is measured against.
void first_run(benchmark::State& state) {
  for (auto _ : state) {
    const alloy::Graph graph = empty_kernels();
    alloy::Executor executor(runtime(), one_device(state));
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

/// One prebuilt graph of independent kernels, replayed in a warm executor.
void replay(benchmark::State& state) {
  const alloy::Graph graph = empty_kernels();
  alloy::Executor executor(runtime(), one_device(state));
  executor.run(graph);  // compiles and warms up
  executor.wait();
  for (auto _ : state) {
    executor.run(graph);
    executor.wait();
  }
  report_per_task(state);
}

/// The same kernels submitted one by one (Executor::kernel), one wait at the end.
void one_task_calls(benchmark::State& state) {
  alloy::Executor executor(runtime(), one_device(state));
  executor.kernel(conformance, "empty", {alloy::Extent(1)}, {});
  executor.wait();
  for (auto _ : state) {
    for (int i = 0; i < tasks; ++i) executor.kernel(conformance, "empty", {alloy::Extent(1)}, {});
    executor.wait();
  }
  report_per_task(state);
}

}  // namespace

// Registered through steady(): medians of five repetitions with their spread.
const auto registered = [] {
  bench::steady(benchmark::RegisterBenchmark("raw_enqueue", raw_enqueue));
  bench::steady(benchmark::RegisterBenchmark("raw_untimed", raw_untimed));
  for (auto [name, run] : {std::pair{"graph_kernels", &graph_kernels}, {"chain_kernels", &chain_kernels},
                           {"host_fanout", &host_fanout}, {"host_chain", &host_chain}, {"first_run", &first_run},
                           {"replay", &replay}, {"one_task_calls", &one_task_calls}}) {
    bench::steady(benchmark::RegisterBenchmark(name, run))->ArgName("traced")->Arg(0)->Arg(1);
  }
  return true;
}();

BENCHMARK_MAIN();
