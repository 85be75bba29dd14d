// Completion latency: how soon a host task fed by device B starts after B's
// last command for it completed, while device A runs a long kernel that was
// handed in first (one graph run each), against the same with A idle; on two
// PoCL devices and on two emulated ones. Times come from the executor's own
// trace, which puts device timestamps on the host's clock. Busy and idle
// trials are interleaved; each figure is a median with its range.
//
// Then what waiting costs the completion lane: the CPU time the process uses
// while one async task's operation takes a second to complete, polled by the
// lane (the lane's backoff bounds it at a test() per millisecond).
//
//   build/default/bin/bench_completion_latency
//   build/default/bin/bench_completion_latency --backend emulated --trials 9 --busy-ms 500
#include <CLI/CLI.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "alloy/alloy.hpp"
#include "alloy/emulated_kernels.hpp"

namespace {

using Clock = std::chrono::steady_clock;

const alloy::ProgramSource kernels{"completion_latency.cl", R"(
// `iterations` dependent steps on one work-item: a kernel that keeps its
// device busy for as long as asked.
KERNEL void spin(const int iterations, GLOBAL float* restrict out) {
  float x = 0.0f;
  for (int i = 0; i < iterations; ++i) x = x * 0.999999f + 1.0f;
  out[0] = x;
}
KERNEL void quick(GLOBAL int* restrict out) { out[get_global_id(0)] = 1; }
)",
                                   ""};

/// The emulated devices' spin: one nanosecond per iteration, and nothing
/// computed (without a host model it would compute on the host's OpenCL
/// device too, taking a core from device B's work).
void define_emulated_spin() {
  alloy::emulation::KernelModel model;
  model.run = [](const alloy::emulation::KernelLaunch&) {};
  model.seconds = [](const alloy::emulation::KernelLaunch& launch) {
    return 1e-9 * static_cast<double>(launch.scalar<int>(0));
  };
  alloy::emulation::define_kernel("spin", model);
}

struct Options {
  std::vector<std::string> backends{"opencl", "emulated"};
  int trials = 7;
  double busy_ms = 250;
  double wait_seconds = 1;
};

struct Spread {
  double median = 0, low = 0, high = 0;
};

Spread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return {values[values.size() / 2], values.front(), values.back()};
}

double milliseconds(std::uint64_t from_ns, std::uint64_t to_ns) {
  return (static_cast<double>(to_ns) - static_cast<double>(from_ns)) / 1e6;
}

alloy::TaskOptions on(std::size_t device) {
  alloy::TaskOptions options;
  options.device = device;
  return options;
}

/// Spin iterations that keep device A busy for about `busy_ms`: timed on
/// the device where a kernel computes for real, as given where it is modelled.
int spin_iterations(alloy::Executor& executor, bool modelled, double busy_ms) {
  if (modelled) return static_cast<int>(busy_ms * 1e6);
  constexpr int probe = 20'000'000;
  alloy::Buffer<float> out(1);
  executor.kernel(kernels, "spin", {alloy::Extent(1)}, {probe, alloy::write(out)}, on(0)).wait();  // compiles
  const auto started = Clock::now();
  executor.kernel(kernels, "spin", {alloy::Extent(1)}, {probe, alloy::write(out)}, on(0)).wait();
  const double probe_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return static_cast<int>(std::min(2e9, probe * busy_ms / probe_ms));
}

struct Trial {
  double after_feed_ms;       ///< host task start - end of B's last command for it
  double after_submission_ms; ///< host task start - the run's submission
};

/// One graph run that keeps A busy (when `busy`), then one that feeds a host
/// task from a quick kernel on B; read back from the trace.
Trial run_trial(alloy::Executor& executor, bool busy, int iterations) {
  alloy::Buffer<float> spun(1);
  alloy::Buffer<int> fed(64);
  alloy::Graph long_kernel;
  long_kernel.kernel(kernels, "spin", {alloy::Extent(1)}, {iterations, alloy::write(spun)}, on(0));
  alloy::Graph feeding;
  feeding.kernel(kernels, "quick", {alloy::Extent(64)}, {alloy::write(fed)}, on(1));
  feeding.host({alloy::read(fed)}, [] {});
  if (busy) executor.run(long_kernel);
  alloy::Run run = executor.run(feeding);
  run.wait();
  executor.wait();
  const std::uint64_t kernel_task = run.task({0}).index;
  const std::uint64_t host_task = run.task({1}).index;
  std::uint64_t fed_ns = 0, started_ns = 0, submitted_ns = 0;
  for (const alloy::TraceSlice& slice : executor.trace().slices) {
    if (!slice.task) continue;
    if (*slice.task == host_task && slice.kind == alloy::TraceKind::host) {
      started_ns = slice.start_ns;
      submitted_ns = slice.run_submitted_ns;
    } else if ((*slice.task == kernel_task || *slice.task == host_task) && slice.device == std::size_t{1}) {
      fed_ns = std::max(fed_ns, slice.end_ns);
    }
  }
  if (started_ns == 0 || fed_ns == 0) throw std::runtime_error("the trace lacks the host task or device B's commands");
  return {milliseconds(fed_ns, started_ns), milliseconds(submitted_ns, started_ns)};
}

void measure_latency(alloy::Runtime& runtime, const std::string& backend, const Options& options) {
  std::vector<alloy::Device*> devices;
  for (alloy::Device* device : runtime.devices()) {
    if (device->info().backend == backend) devices.push_back(device);
  }
  if (devices.size() < 2) {
    std::printf("%s: needs two devices, found %zu: skipped\n", backend.c_str(), devices.size());
    return;
  }
  alloy::ExecutorOptions executor_options;
  executor_options.devices = {devices[0], devices[1]};
  executor_options.trace = true;
  alloy::Executor executor(runtime, executor_options);
  const int iterations = spin_iterations(executor, backend == "emulated", options.busy_ms);
  run_trial(executor, false, iterations);  // compiles on B
  std::vector<double> busy_feed, busy_submitted, idle_feed, idle_submitted;
  for (int trial = 0; trial < options.trials; ++trial) {
    for (bool busy : {true, false}) {
      const Trial measured = run_trial(executor, busy, iterations);
      (busy ? busy_feed : idle_feed).push_back(measured.after_feed_ms);
      (busy ? busy_submitted : idle_submitted).push_back(measured.after_submission_ms);
    }
  }
  std::printf("%s: %s and %s; A busy for about %.0f ms; %d trials each, interleaved\n", backend.c_str(),
              devices[0]->label().c_str(), devices[1]->label().c_str(), options.busy_ms, options.trials);
  std::printf("  %-8s %-38s %-38s\n", "device A", "host task start after B's event (ms)",
              "after the run's submission (ms)");
  for (bool busy : {true, false}) {
    const Spread feed = spread_of(busy ? busy_feed : idle_feed);
    const Spread submitted = spread_of(busy ? busy_submitted : idle_submitted);
    std::printf("  %-8s median %7.3f  [%7.3f, %7.3f]       median %7.3f  [%7.3f, %7.3f]\n", busy ? "busy" : "idle",
                feed.median, feed.low, feed.high, submitted.median, submitted.low, submitted.high);
  }
}

/// Completes once `ready` has passed; counts its tests.
class CompletesAt : public alloy::AsyncOperation {
 public:
  CompletesAt(Clock::time_point ready, long& tests) : ready_(ready), tests_(tests) {}
  bool test() override {
    ++tests_;
    return Clock::now() >= ready_;
  }

 private:
  Clock::time_point ready_;
  long& tests_;
};

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

/// The process's CPU time while `wait` runs, as a share of one core.
template <class Wait>
double cpu_share_while(Wait&& wait) {
  const double cpu_before = process_cpu_seconds();
  const auto started = Clock::now();
  wait();
  const double wall = std::chrono::duration<double>(Clock::now() - started).count();
  return (process_cpu_seconds() - cpu_before) / wall;
}

void measure_polling(alloy::Runtime& runtime, const Options& options) {
  alloy::Executor executor(runtime);
  long tests = 0;
  executor.async({}, [&] { return std::make_unique<CompletesAt>(Clock::now(), tests); }).wait();  // starts the lane
  const auto pending = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.wait_seconds));
  // The baseline: the same wait on a host task, with the lane idle.
  const double idle = cpu_share_while([&] { executor.host({}, [&] { std::this_thread::sleep_for(pending); }).wait(); });
  tests = 0;
  const double polling = cpu_share_while([&] {
    const auto ready = Clock::now() + pending;
    executor.async({}, [&] { return std::make_unique<CompletesAt>(ready, tests); }).wait();
  });
  std::printf("waiting %.2f s, process CPU: %.2f%% of one core with the lane idle, %.2f%% with one async operation "
              "pending (%ld tests, %.0f per second)\n",
              options.wait_seconds, 100 * idle, 100 * polling, tests, tests / options.wait_seconds);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"alloy completion latency: host tasks fed by one device while another is busy"};
  app.add_option("--backend", options.backends, "opencl, emulated, or both (the default)")->delimiter(',');
  app.add_option("--trials", options.trials, "busy and idle trials each, interleaved")->check(CLI::PositiveNumber);
  app.add_option("--busy-ms", options.busy_ms, "how long device A's kernel runs")->check(CLI::Range(1.0, 10000.0));
  app.add_option("--wait-seconds", options.wait_seconds, "how long the async operation stays pending")
      ->check(CLI::Range(0.01, 60.0));
  CLI11_PARSE(app, argc, argv);

  // Two devices of each kind unless the caller chose others.
  setenv("POCL_DEVICES", "pthread pthread", 0);
  setenv("ALLOY_EMULATED_DEVICES", "pcie5,devices=2", 0);
  define_emulated_spin();
  try {
    alloy::Runtime runtime;
    for (const std::string& backend : options.backends) measure_latency(runtime, backend, options);
    measure_polling(runtime, options);
  } catch (const std::exception& error) {
    std::cerr << "bench_completion_latency: " << error.what() << '\n';
    return 1;
  }
}
