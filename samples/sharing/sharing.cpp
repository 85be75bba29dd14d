// sharing sample: a latency-critical loop and a background throughput job
// on one device, as two executors of one program or as two programs, with
// or without priority classes (docs/sharing.md).
//
//   sharing [--two-processes] [--no-classes] [--seconds 2] [--device emulated]
#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iostream>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "alloy/alloy.hpp"
#include "embedded/sharing_source.hpp"

namespace {

using Clock = std::chrono::steady_clock;

const alloy::ProgramSource kernels{"sharing.cl", std::string(alloy_kernels::sharing_source), ""};
constexpr std::size_t churn_group = 64;
constexpr int churn_steps = 2000;
constexpr std::size_t request_items = 4096;
constexpr auto request_period = std::chrono::milliseconds(4);

alloy::Device& device_named(alloy::Runtime& runtime, const std::string& choice) {
  for (alloy::Device* device : runtime.devices()) {
    if (choice.empty() || device->info().backend == choice) return *device;
  }
  throw alloy::InvalidArgument("no " + (choice.empty() ? std::string("device") : choice + " device") +
                               "; run alloy-info to see what there is");
}

alloy::ExecutorOptions on(alloy::Device& device, alloy::PriorityClass priority_class) {
  alloy::ExecutorOptions options;
  options.devices = {&device};
  options.priority_class = priority_class;
  return options;
}

/// What churn leaves in work-item `x`, computed here.
std::uint32_t churned(std::uint32_t x) {
  for (int i = 0; i < churn_steps; ++i) x = x * 1664525u + 1013904223u;
  return x;
}

/// The background job: churn kernels, four handed in at a time, until
/// `stop`; returns kernels completed per second. Enough work-groups that a
/// background executor's slices each fill the device.
double run_background(alloy::Runtime& runtime, alloy::Device& device, alloy::PriorityClass priority_class,
                      const std::atomic<bool>& stop) {
  alloy::Executor executor(runtime, on(device, priority_class));
  const std::size_t items = std::max<std::size_t>(16384, std::size_t{device.info().compute_units} * churn_group * 4);
  alloy::Buffer<std::uint32_t> out(items / churn_group);
  const alloy::LaunchRange range{alloy::Extent(items), alloy::Extent(churn_group)};
  std::deque<alloy::Run> in_flight;
  long completed = 0;
  const auto begin = Clock::now();
  while (!stop) {
    if (in_flight.size() == 4) {
      in_flight.front().wait();
      in_flight.pop_front();
      ++completed;
    }
    in_flight.push_back(executor.kernel(kernels, "churn", range, {churn_steps, alloy::write(out)}));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  executor.synchronize(out);
  if (out.host()[1] != churned(churn_group)) throw alloy::Error("the background job's result is wrong");
  return static_cast<double>(completed) / seconds;
}

/// The critical job: a small request every 4 ms for `seconds`; returns each
/// request's latency, from its submission to its completion, sorted.
std::vector<double> run_critical(alloy::Runtime& runtime, alloy::Device& device, alloy::PriorityClass priority_class,
                                 double seconds) {
  alloy::Executor executor(runtime, on(device, priority_class));
  alloy::Buffer<std::uint32_t> counts(std::vector<std::uint32_t>(request_items, 0));
  const alloy::LaunchRange range{alloy::Extent(request_items)};
  executor.kernel(kernels, "respond", range, {alloy::read_write(counts)}).wait();  // compiles
  for (const alloy::DeviceJob& job : executor.jobs_on(0)) {
    std::printf("  on the device: process %d, %s\n", static_cast<int>(job.process), alloy::to_string(job.priority_class));
  }
  std::vector<double> latencies;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (auto next = Clock::now(); next < end; next += request_period) {
    std::this_thread::sleep_until(next);
    const auto submitted = Clock::now();
    executor.kernel(kernels, "respond", range, {alloy::read_write(counts)}).wait();
    latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - submitted).count());
  }
  executor.synchronize(counts);
  for (std::uint32_t count : counts.host()) {
    if (count != latencies.size() + 1) throw alloy::Error("the critical job's result is wrong");
  }
  std::sort(latencies.begin(), latencies.end());
  return latencies;
}

/// Runs the background job in a child process, started before this process
/// makes its runtime, for `seconds`; its throughput comes back on a pipe.
pid_t start_background_process(const std::string& choice, alloy::PriorityClass priority_class, double seconds,
                               int& report) {
  int ends[2];
  if (::pipe(ends) != 0) throw alloy::Error("pipe failed");
  const pid_t pid = ::fork();
  if (pid != 0) {
    ::close(ends[1]);
    report = ends[0];
    return pid;
  }
  ::close(ends[0]);
  alloy::Runtime runtime;
  std::atomic<bool> stop{false};
  std::thread timer([&] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
  });
  const double per_second = run_background(runtime, device_named(runtime, choice), priority_class, stop);
  timer.join();
  const bool told = ::write(ends[1], &per_second, sizeof per_second) == sizeof per_second;
  ::_exit(told ? 0 : 1);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"A latency-critical loop beside a background job on one device."};
  bool two_processes = false;
  bool no_classes = false;
  double seconds = 2;
  std::string choice;
  app.add_flag("--two-processes", two_processes, "run the background job as a second program");
  app.add_flag("--no-classes", no_classes, "leave both jobs normal, as a program that sets no class");
  app.add_option("--seconds", seconds, "how long the critical loop runs")->check(CLI::Range(0.1, 3600.0));
  app.add_option("--device", choice, "a backend name (its first device); default: the first device");
  CLI11_PARSE(app, argc, argv);
  const auto critical_class = no_classes ? alloy::PriorityClass::normal : alloy::PriorityClass::critical;
  const auto background_class = no_classes ? alloy::PriorityClass::normal : alloy::PriorityClass::background;
  try {
    int report = -1;
    // Forked before this process makes its runtime: a child of a process
    // with driver threads would inherit none of them.
    const pid_t child = two_processes ? start_background_process(choice, background_class, seconds + 1, report) : 0;
    alloy::Runtime runtime;
    alloy::Device& device = device_named(runtime, choice);
    std::printf("%s, %s, %s\n", device.label().c_str(), two_processes ? "two processes" : "one process",
                no_classes ? "no classes" : "critical and background classes");
    std::atomic<bool> stop{false};
    double background_per_second = 0;
    std::thread background;
    if (!two_processes) {
      background = std::thread([&] { background_per_second = run_background(runtime, device, background_class, stop); });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the background job is under way
    const std::vector<double> latencies = run_critical(runtime, device, critical_class, seconds);
    stop = true;
    if (background.joinable()) background.join();
    if (two_processes) {
      if (::read(report, &background_per_second, sizeof background_per_second) != sizeof background_per_second) {
        throw alloy::Error("the background process ended without its throughput");
      }
      int status = 0;
      ::waitpid(child, &status, 0);
    }
    const auto at = [&](double q) { return latencies[static_cast<std::size_t>(q * static_cast<double>(latencies.size() - 1))]; };
    std::printf("  critical requests: %zu, latency p50 %.3f ms, p99 %.3f ms\n", latencies.size(), at(0.5), at(0.99));
    std::printf("  background: %.1f kernels/s\n", background_per_second);
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "sharing: " << error.what() << '\n';
    return 1;
  }
}
