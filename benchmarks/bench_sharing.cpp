// Sharing one device between a latency-critical job and a background one.
// The critical job hands in a small kernel every --period-ms and waits for
// it (latency: submission to completion, p50 and p99 over --requests); the
// background job keeps long kernels queued (throughput: kernels completed
// per second). Four cases, in one sitting: critical alone, background
// alone, both without classes (both normal: how alloy shared a device
// before classes), both with classes (critical and background). Both jobs
// are executors of one process, or (--processes) the background job is a
// second process, this program started again with --background-for.
//
//   build/default/bin/bench_sharing
//   build/default/bin/bench_sharing --backend opencl --processes --requests 1000
#include <CLI/CLI.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "alloy/alloy.hpp"
#include "alloy/emulated_kernels.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

const alloy::ProgramSource kernels{"sharing.cl", R"(
// `iterations` dependent steps per work-item: the background job's kernel.
// One result per work-group keeps its buffer small beside its work.
KERNEL void burn(const int iterations, GLOBAL float* restrict out) {
  float x = (float)get_global_id(0);
  for (int i = 0; i < iterations; ++i) x = x * 0.999999f + 1.0f;
  if (get_local_id(0) == 0) out[get_group_id(0)] = x;
}
// The critical job's request.
KERNEL void request(GLOBAL int* restrict data) { data[get_global_id(0)] += 1; }
)",
                                   ""};

constexpr std::size_t request_items = 4096;
/// Burn kernels run in work-groups of this many, so that a background
/// executor can slice them (docs/sharing.md).
constexpr std::size_t burn_group = 64;
/// The emulated device (132 compute units) needs many groups for slices
/// that each fill it; PoCL's two cores need few, and compute each item.
constexpr std::size_t emulated_burn_items = std::size_t{1} << 20;
constexpr std::size_t computed_burn_items = 16384;

std::size_t burn_items(const alloy::Device& device) {
  return device.info().emulation.empty() ? computed_burn_items : emulated_burn_items;
}

alloy::LaunchRange burn_range(const alloy::Device& device) {
  return {alloy::Extent(burn_items(device)), alloy::Extent(burn_group)};
}

/// On emulated devices: one nanosecond per iteration over the whole burn
/// range (a slice takes its share), nothing computed.
void define_emulated_burn() {
  alloy::emulation::KernelModel model;
  model.run = [](const alloy::emulation::KernelLaunch&) {};
  model.seconds = [](const alloy::emulation::KernelLaunch& launch) {
    return 1e-9 * static_cast<double>(launch.scalar<int>(0)) * static_cast<double>(launch.work_items()) /
           static_cast<double>(emulated_burn_items);
  };
  alloy::emulation::define_kernel("burn", model);
}

struct Options {
  std::vector<std::string> backends{"opencl", "emulated"};
  int requests = 500;
  double period_ms = 4;
  double burn_ms = 10;
  int queued = 8;  ///< background kernels the background job keeps handed in
  int rounds = 3;  ///< of every case, interleaved; medians reported
  bool processes = false;
  // The background process's own settings (--background-for).
  double background_seconds = 0;
  std::string background_backend;
  std::string background_class;
  int background_iterations = 0;
};

alloy::Device& first_device(alloy::Runtime& runtime, const std::string& backend) {
  for (alloy::Device* device : runtime.devices()) {
    if (device->info().backend == backend) return *device;
  }
  throw std::runtime_error("no " + backend + " device");
}

alloy::ExecutorOptions on(alloy::Device& device, alloy::PriorityClass priority_class, unsigned lanes = 1) {
  alloy::ExecutorOptions options;
  options.devices = {&device};
  options.priority_class = priority_class;
  options.compute_lanes = lanes;
  return options;
}

/// Iterations that make a burn kernel last about `burn_ms` on `device`.
int burn_iterations(alloy::Runtime& runtime, alloy::Device& device, double burn_ms) {
  if (!device.info().emulation.empty()) return static_cast<int>(burn_ms * 1e6);
  alloy::Executor executor(runtime, on(device, alloy::PriorityClass::normal));
  alloy::Buffer<float> out(burn_items(device) / burn_group);
  constexpr int probe = 50'000;
  executor.kernel(kernels, "burn", burn_range(device), {probe, alloy::write(out)}).wait();  // compiles
  const auto started = Clock::now();
  executor.kernel(kernels, "burn", burn_range(device), {probe, alloy::write(out)}).wait();
  const double probe_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return static_cast<int>(std::clamp(probe * burn_ms / probe_ms, 1.0, 2e9));
}

/// The background job: burn kernels, `queued` handed in at a time, until
/// `stop`; returns kernels completed per second.
double run_background(alloy::Runtime& runtime, alloy::Device& device, alloy::PriorityClass priority_class,
                      int iterations, int queued, const std::atomic<bool>& stop, std::atomic<bool>* started) {
  alloy::Executor executor(runtime, on(device, priority_class, 2));
  std::vector<alloy::Buffer<float>> outs;
  for (int k = 0; k < queued; ++k) outs.emplace_back(burn_items(device) / burn_group);
  // Compiles, and tells the executor how long a burn takes.
  executor.kernel(kernels, "burn", burn_range(device), {iterations, alloy::write(outs[0])}).wait();
  std::deque<alloy::Run> handed_in;
  long completed = 0;
  const auto begin = Clock::now();
  if (started) *started = true;
  for (int k = 0; !stop; ++k) {
    if (static_cast<int>(handed_in.size()) == queued) {
      handed_in.front().wait();
      handed_in.pop_front();
      ++completed;
    }
    handed_in.push_back(executor.kernel(kernels, "burn", burn_range(device),
                                        {iterations, alloy::write(outs[static_cast<std::size_t>(k % queued)])}));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  executor.wait();
  return static_cast<double>(completed) / seconds;
}

struct Latency {
  double p50_ms = 0, p90_ms = 0, p99_ms = 0;
};

/// The critical job: `requests` requests, one every `period_ms`.
Latency run_critical(alloy::Runtime& runtime, alloy::Device& device, alloy::PriorityClass priority_class,
                     const Options& options) {
  alloy::Executor executor(runtime, on(device, priority_class));
  alloy::Buffer<int> data(request_items);
  executor.kernel(kernels, "request", {alloy::Extent(request_items)}, {alloy::read_write(data)}).wait();  // compiles
  std::vector<double> latencies;
  auto next = Clock::now();
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(options.period_ms));
  for (int r = 0; r < options.requests; ++r) {
    std::this_thread::sleep_until(next);
    next += period;
    const auto submitted = Clock::now();
    executor.kernel(kernels, "request", {alloy::Extent(request_items)}, {alloy::read_write(data)}).wait();
    latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - submitted).count());
    next = std::max(next, Clock::now());
  }
  std::sort(latencies.begin(), latencies.end());
  const auto at = [&](double q) { return latencies[static_cast<std::size_t>(q * static_cast<double>(latencies.size() - 1))]; };
  return {at(0.5), at(0.9), at(0.99)};
}

/// This program again, as the background job of another process; returns
/// its pid and the pipe it reports on.
pid_t start_background_process(const std::string& backend, alloy::PriorityClass priority_class, int iterations,
                               double seconds, int queued, int& report) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  std::vector<std::string> arguments{self,
                                     "--background-for", std::to_string(seconds),
                                     "--backend", backend,
                                     "--class", alloy::to_string(priority_class),
                                     "--iterations", std::to_string(iterations),
                                     "--queued", std::to_string(queued)};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int status = ::posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);
  if (status != 0) throw std::runtime_error("starting the background process failed");
  report = pipe_ends[0];
  return pid;
}

/// One line from `fd`.
std::string read_line(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

/// The background process's whole life (--background-for): says "started",
/// runs for the time given, says its throughput.
int background_process(const Options& options) {
  alloy::Runtime runtime;
  alloy::Device& device = first_device(runtime, options.background_backend);
  const std::optional<alloy::PriorityClass> priority_class = alloy::parse_priority_class(options.background_class);
  if (!priority_class) throw std::runtime_error("no class " + options.background_class);
  std::atomic<bool> stop{false};
  std::atomic<bool> started{false};
  std::thread stopper([&] {
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::printf("started\n");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::duration<double>(options.background_seconds));
    stop = true;
  });
  const double throughput =
      run_background(runtime, device, *priority_class, options.background_iterations, options.queued, stop, &started);
  stopper.join();
  std::printf("%.3f\n", throughput);
  return 0;
}

struct Outcome {
  Latency critical;
  double background_per_second = 0;
};

/// Both jobs at once: critical requests while the background job runs, in
/// this process or another.
Outcome run_both(alloy::Runtime& runtime, alloy::Device& device, bool classes, int iterations, const Options& options) {
  const alloy::PriorityClass critical_class = classes ? alloy::PriorityClass::critical : alloy::PriorityClass::normal;
  const alloy::PriorityClass background_class = classes ? alloy::PriorityClass::background : alloy::PriorityClass::normal;
  Outcome outcome;
  if (options.processes) {
    const double seconds = options.requests * options.period_ms / 1000.0 + 2.0;
    int report = -1;
    const pid_t pid =
        start_background_process(device.info().backend, background_class, iterations, seconds, options.queued, report);
    if (read_line(report) != "started") throw std::runtime_error("the background process did not start");
    outcome.critical = run_critical(runtime, device, critical_class, options);
    outcome.background_per_second = std::stod(read_line(report));
    ::close(report);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return outcome;
  }
  std::atomic<bool> stop{false};
  std::atomic<bool> started{false};
  std::thread background([&] {
    outcome.background_per_second =
        run_background(runtime, device, background_class, iterations, options.queued, stop, &started);
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  outcome.critical = run_critical(runtime, device, critical_class, options);
  stop = true;
  background.join();
  return outcome;
}

/// One round of every case, in one sitting.
struct Round {
  Latency alone;
  double background_alone = 0;
  double sliced_alone = 0;
  Outcome without, with;
};

Round run_round(alloy::Runtime& runtime, alloy::Device& device, int iterations, const Options& options) {
  Round round;
  round.alone = run_critical(runtime, device, alloy::PriorityClass::normal, options);
  const auto background_for_a_while = [&](alloy::PriorityClass priority_class) {
    std::atomic<bool> stop{false};
    std::thread timer([&] {
      std::this_thread::sleep_for(std::chrono::duration<double>(options.requests * options.period_ms / 1000.0));
      stop = true;
    });
    const double per_second = run_background(runtime, device, priority_class, iterations, options.queued, stop, nullptr);
    timer.join();
    return per_second;
  };
  round.background_alone = background_for_a_while(alloy::PriorityClass::normal);
  // A background executor slices its kernels even alone: what that costs.
  round.sliced_alone = background_for_a_while(alloy::PriorityClass::background);
  round.without = run_both(runtime, device, false, iterations, options);
  round.with = run_both(runtime, device, true, iterations, options);
  return round;
}

/// The median over rounds of what `of` reads from each.
template <class Of>
double median_of(const std::vector<Round>& rounds, Of of) {
  std::vector<double> values;
  for (const Round& round : rounds) values.push_back(of(round));
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void measure(alloy::Runtime& runtime, const std::string& backend, const Options& options) {
  alloy::Device& device = first_device(runtime, backend);
  const int iterations = burn_iterations(runtime, device, options.burn_ms);
  std::printf("%s (%s), %s: %d requests every %.1f ms; background kernels of about %.0f ms, %d handed in; "
              "medians of %d interleaved rounds\n",
              device.label().c_str(), device.ranks_queues() ? "ranks queues" : "ranks no queues",
              options.processes ? "two processes" : "one process, two executors", options.requests,
              options.period_ms, options.burn_ms, options.queued, options.rounds);
  std::vector<Round> rounds;
  for (int r = 0; r < options.rounds; ++r) rounds.push_back(run_round(runtime, device, iterations, options));
  // Ratios are taken within each round, against that round's alone figures.
  const auto row = [&](const char* name, auto critical, auto background) {
    std::printf("  %-26s %10.3f %10.3f %10.3f %12.2f %16.1f %12.2f\n", name,
                median_of(rounds, [&](const Round& r) { return critical(r).p50_ms; }),
                median_of(rounds, [&](const Round& r) { return critical(r).p90_ms; }),
                median_of(rounds, [&](const Round& r) { return critical(r).p99_ms; }),
                median_of(rounds, [&](const Round& r) { return critical(r).p99_ms / r.alone.p99_ms; }),
                median_of(rounds, background),
                median_of(rounds, [&](const Round& r) { return background(r) / r.background_alone; }));
  };
  std::printf("  %-26s %10s %10s %10s %12s %16s %12s\n", "case", "p50 ms", "p90 ms", "p99 ms", "p99 / alone",
              "background k/s", "/ alone");
  std::printf("  %-26s %10.3f %10.3f %10.3f %12s %16s %12s\n", "critical alone",
              median_of(rounds, [](const Round& r) { return r.alone.p50_ms; }),
              median_of(rounds, [](const Round& r) { return r.alone.p90_ms; }),
              median_of(rounds, [](const Round& r) { return r.alone.p99_ms; }), "1.00", "-", "-");
  std::printf("  %-26s %10s %10s %10s %12s %16.1f %12s\n", "background alone", "-", "-", "-", "-",
              median_of(rounds, [](const Round& r) { return r.background_alone; }), "1.00");
  std::printf("  %-26s %10s %10s %10s %12s %16.1f %12.2f\n", "background alone, sliced", "-", "-", "-", "-",
              median_of(rounds, [](const Round& r) { return r.sliced_alone; }),
              median_of(rounds, [](const Round& r) { return r.sliced_alone / r.background_alone; }));
  row("both, no classes", [](const Round& r) { return r.without.critical; },
      [](const Round& r) { return r.without.background_per_second; });
  row("both, with classes", [](const Round& r) { return r.with.critical; },
      [](const Round& r) { return r.with.background_per_second; });
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"alloy sharing: a latency-critical job beside a background job on one device"};
  app.add_option("--backend", options.backends, "opencl, emulated, or both (the default)")->delimiter(',');
  app.add_option("--requests", options.requests, "critical requests per case")->check(CLI::Range(10, 1000000));
  app.add_option("--period-ms", options.period_ms, "between critical requests")->check(CLI::Range(0.1, 1000.0));
  app.add_option("--burn-ms", options.burn_ms, "how long a background kernel runs")->check(CLI::Range(0.1, 10000.0));
  app.add_option("--queued", options.queued, "background kernels handed in at a time")->check(CLI::Range(1, 64));
  app.add_flag("--processes", options.processes, "the background job in a second process");
  app.add_option("--rounds", options.rounds, "rounds of every case, interleaved; medians reported")
      ->check(CLI::Range(1, 100));
  app.add_option("--background-for", options.background_seconds, "(internal) be the background process");
  app.add_option("--class", options.background_class, "(internal) the background process's class");
  app.add_option("--iterations", options.background_iterations, "(internal) its kernels' iterations");
  CLI11_PARSE(app, argc, argv);

  setenv("ALLOY_EMULATED_DEVICES", "pcie5", 0);
  define_emulated_burn();
  try {
    if (options.background_seconds > 0) {
      options.background_backend = options.backends.front();
      return background_process(options);
    }
    alloy::Runtime runtime;
    for (const std::string& backend : options.backends) measure(runtime, backend, options);
  } catch (const std::exception& error) {
    std::cerr << "bench_sharing: " << error.what() << '\n';
    return 1;
  }
}
