// What bench_graph's cases share: the device, the task count, the counter.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

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

/// The spread of a case's repetitions: (largest - smallest) / median.
inline double relative_spread(const std::vector<double>& values) {
  if (values.empty()) return 0;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  return median == 0 ? 0 : (sorted.back() - sorted.front()) / median;
}

/// Every case the same way: milliseconds of wall time, five repetitions of
/// at least a second each (a machine shared with other work moves single
/// runs by 15-25%), reported as their median with the spread beside it.
inline benchmark::internal::Benchmark* steady(benchmark::internal::Benchmark* bench) {
  return bench->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(1.0)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true)
      ->ComputeStatistics("spread", relative_spread, benchmark::StatisticUnit::kPercentage);
}

inline void report_per_task(benchmark::State& state) {
  // Invert a rate of tasks per second: microseconds per task.
  state.counters["us_per_task"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * tasks / 1e6,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace bench
