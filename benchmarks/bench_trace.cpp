// Whether the utilization report tells the truth: a double-buffered stream
// (copy in, kernel, copy out per chunk, on their own lanes) runs on a traced
// executor, and the report's busy and overlap figures are set beside the
// benchmark's own: the run's device-measured command times
// (RunOptions::timed) against the wall time it measured around the run.
// Every device found, plus an emulated PCIe 5 device, where copies and
// kernels overlap on separate engines.
//
//   build/default/bin/bench_trace [--megabytes N] [--chunks N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <CLI/CLI.hpp>

#include "alloy/alloy.hpp"
#include "alloy/emulated_kernels.hpp"
#include "alloy/utilization_report.hpp"
#include "embedded/diagnose_kernels_source.hpp"

namespace {

const alloy::ProgramSource kernels{"diagnose_kernels.cl", std::string(alloy_kernels::diagnose_kernels_source), ""};
constexpr int rounds = 8;
constexpr unsigned depth = 2;

/// Sorted, merged intervals on one clock.
using Intervals = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

Intervals merged(Intervals parts) {
  std::sort(parts.begin(), parts.end());
  Intervals out;
  for (const auto& part : parts) {
    if (!out.empty() && part.first <= out.back().second) out.back().second = std::max(out.back().second, part.second);
    else out.push_back(part);
  }
  return out;
}

std::uint64_t length(const Intervals& parts) {
  std::uint64_t total = 0;
  for (const auto& [begin, end] : parts) total += end - begin;
  return total;
}

std::uint64_t common(const Intervals& a, const Intervals& b) {
  std::uint64_t total = 0;
  for (const auto& [a0, a1] : a) {
    for (const auto& [b0, b1] : b) {
      const std::uint64_t begin = std::max(a0, b0);
      const std::uint64_t end = std::min(a1, b1);
      if (begin < end) total += end - begin;
    }
  }
  return total;
}

struct Figures {
  double busy = 0;
  double overlap = 0;
};

/// Streams `count` floats through device 0 of `executor` in `chunks` chunks;
/// gives the benchmark's own figures and the run's report.
std::pair<Figures, alloy::UtilizationReport> stream(alloy::Executor& executor, std::size_t count, std::size_t chunks) {
  std::vector<float> x(count, 0.5f);
  std::vector<float> y(count);
  auto input = alloy::Buffer<float>::borrow_read_only(x);
  auto output = alloy::Buffer<float>::borrow(y);
  const std::size_t chunk = count / chunks;
  std::vector<alloy::Buffer<float>> in_slots;
  std::vector<alloy::Buffer<float>> out_slots;
  for (unsigned s = 0; s < depth; ++s) {
    in_slots.emplace_back(chunk);
    out_slots.emplace_back(chunk);
  }
  alloy::TaskOptions on_first;
  on_first.device = 0;
  alloy::Graph graph;
  for (std::size_t c = 0; c < chunks; ++c) {
    const auto& in = in_slots[c % depth];
    const auto& out = out_slots[c % depth];
    graph.copy(input.slice(c * chunk, chunk), in.whole(), on_first);
    graph.kernel(kernels, "polish", {alloy::Extent(chunk)},
                 {alloy::read(in), alloy::write(out), std::uint64_t{chunk}, rounds}, on_first);
    graph.copy(out.whole(), output.slice(c * chunk, chunk), on_first);
  }
  alloy::RunOptions timed;
  timed.timed = true;
  const auto start = std::chrono::steady_clock::now();
  const alloy::Run run = executor.run(graph, timed);
  run.wait();
  const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  Intervals compute;
  Intervals copies;
  for (const alloy::CommandTime& command : run.command_times()) {
    (command.lane == alloy::Lane::compute ? compute : copies).emplace_back(command.started_ns, command.ended_ns);
  }
  compute = merged(compute);
  copies = merged(copies);
  Figures own;
  own.busy = static_cast<double>(length(compute)) / static_cast<double>(wall.count());
  own.overlap = static_cast<double>(common(compute, copies)) / static_cast<double>(length(copies));
  return {own, alloy::analyze(executor.trace())};
}

void define_emulated_model() {
  alloy::emulation::KernelModel model;
  model.seconds = [](const alloy::emulation::KernelLaunch& launch) {
    return static_cast<double>(launch.scalar<std::uint64_t>(2)) * 0.05e-9 * rounds;
  };
  alloy::emulation::define_kernel("polish", model);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sets the utilization report's busy and overlap figures beside the benchmark's own."};
  std::size_t megabytes = 64;
  std::size_t chunks = 16;
  int repeats = 3;
  app.add_option("--megabytes", megabytes, "data streamed per run")->check(CLI::PositiveNumber);
  app.add_option("--chunks", chunks, "chunks per run")->check(CLI::Range(2, 4096));
  app.add_option("--repeats", repeats, "runs per device")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  setenv("ALLOY_EMULATED_DEVICES", "pcie5,data=0,memory=8G", 0);
  define_emulated_model();

  alloy::Runtime runtime;
  const std::size_t count = megabytes * (std::size_t{1} << 20) / sizeof(float);
  double worst = 0;
  std::printf("%-60s %8s %8s %8s %8s %8s %8s\n", "device", "busy", "report", "ratio", "overlap", "report", "ratio");
  for (alloy::Device* device : runtime.devices()) {
    alloy::ExecutorOptions options;
    options.devices = {device};
    options.trace = true;
    {
      alloy::Executor warm_up(runtime, options);
      stream(warm_up, count, chunks);  // compiles the kernel
    }
    for (int repeat = 0; repeat < repeats; ++repeat) {
      alloy::Executor executor(runtime, options);  // a fresh trace per run
      const auto [own, report] = stream(executor, count, chunks);
      const alloy::DeviceUtilization& traced = report.devices.at(0);
      const double busy_ratio = traced.busy / own.busy;
      const double overlap_ratio = own.overlap > 0 ? traced.overlap / own.overlap : 1.0;
      worst = std::max({worst, std::fabs(busy_ratio - 1), own.overlap > 0.05 ? std::fabs(overlap_ratio - 1) : 0.0});
      std::printf("%-60s %7.1f%% %7.1f%% %8.3f %7.1f%% %7.1f%% %8.3f\n", device->label().substr(0, 60).c_str(),
                  100 * own.busy, 100 * traced.busy, busy_ratio, 100 * own.overlap, 100 * traced.overlap,
                  overlap_ratio);
    }
  }
  std::printf("largest difference: %.1f%% (busy; overlap where over 5%%)\n", 100 * worst);
  return 0;
}
