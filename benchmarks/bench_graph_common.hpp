// What bench_graph's cases share: the device, the task count, the counter.
#pragma once

#include <benchmark/benchmark.h>

#include "alloy/alloy.hpp"

namespace bench {

/// Tasks per iteration of every case.
constexpr int tasks = 10'000;

inline alloy::Runtime& runtime() {
  static alloy::Runtime shared;
  return shared;
}

inline alloy::Device& device() {
  if (runtime().devices().empty()) throw alloy::Error("bench_graph: no device; run alloy-info");
  return *runtime().devices().front();
}

inline void report_per_task(benchmark::State& state) {
  // Invert a rate of tasks per second: microseconds per task.
  state.counters["us_per_task"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * tasks / 1e6,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace bench
