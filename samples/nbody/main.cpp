// n-body sample: a short-range n-body step over an array of the
// application's own structs. On each device the step runs twice:
//   - over the host struct as it is (a kernel that indexes Body[]);
//   - through FIELD, in the layout this device's profile chose; the executor
//     converts the bodies into that layout and back on every step.
// Both are checked against the step on the host, then timed.
//
//   nbody [n] [steps]     (defaults 32768 and 20)
//
// Untuned, the profile gives the kernel's defaults (aos, 64 work-items).
// Capture a launch and tune on it, and the same program runs tuned:
//   ALLOY_CAPTURE=samples.nbody ALLOY_CAPTURE_DIR=captures nbody
//   autotune --capture captures/samples.nbody.32768.alloycap
//   nbody
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nbody.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Variant {
  const char* name;
  bool tuned;
  double best_seconds_per_step = 1e30;
  double difference = 0;  // after one step, against the host
};

}  // namespace

int run(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 32768;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (n <= 0 || steps <= 0) {
    std::fprintf(stderr, "nbody: n and steps must be positive numbers\n");
    return 2;
  }
  alloy::Runtime runtime;
  if (runtime.devices().empty()) {
    std::fprintf(stderr, "nbody: no device; alloy-info says why\n");
    return 1;
  }
  const std::vector<nbody::Body> initial = nbody::make_bodies(n, 7);
  std::vector<nbody::Body> expected;
  nbody::step_on_host(initial, expected, nbody::time_step);
  const double tolerance = 1e-4;
  bool all_right = true;

  for (alloy::Device* device : runtime.devices()) {
    const alloy::TunedChoice choice = runtime.profiles().lookup(device->info(), nbody::tuned_step(), alloy::Extent(std::size_t(n)));
    std::printf("device %s\n  profile: %s%s\n  layout and work-group: %s\n", device->label().c_str(),
                std::string(alloy::to_string(choice.match)).c_str(),
                choice.match == alloy::ProfileMatch::defaults ? " (capture a launch and `autotune --capture` it)" : "",
                alloy::describe(nbody::tuned_step(), choice.configuration).c_str());
    alloy::ExecutorOptions options;
    options.devices = {device};
    alloy::Executor executor(runtime, options);
    Variant variants[] = {{"host struct as is", false}, {"tuned layout", true}};

    for (Variant& variant : variants) {
      alloy::Buffer<nbody::Body> a{std::span<const nbody::Body>(initial)}, b(initial.size());
      a.describe(nbody::body_record());
      b.describe(nbody::body_record());
      executor.run(nbody::steps_graph(variant.tuned, n, 1, a, b));
      executor.synchronize(b);
      variant.difference = nbody::largest_difference(expected, {b.host().begin(), b.host().end()});
      all_right = all_right && variant.difference <= tolerance;
    }
    // Interleaved, best of three, after one run that compiles and moves.
    for (int round = 0; round < 4; ++round) {
      for (Variant& variant : variants) {
        alloy::Buffer<nbody::Body> a{std::span<const nbody::Body>(initial)}, b(initial.size());
        a.describe(nbody::body_record());
        b.describe(nbody::body_record());
        const alloy::Graph graph = nbody::steps_graph(variant.tuned, n, steps, a, b);
        executor.run(graph);  // the bodies reach the device
        executor.wait();
        const Clock::time_point start = Clock::now();
        executor.run(graph);
        executor.wait();
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count() / steps;
        if (round > 0) variant.best_seconds_per_step = std::min(variant.best_seconds_per_step, seconds);
      }
    }
    for (const Variant& variant : variants) {
      std::printf("  %-18s %8.3f ms per step   %s (largest difference from the host %.1e)\n", variant.name,
                  variant.best_seconds_per_step * 1e3, variant.difference <= tolerance ? "right" : "WRONG",
                  variant.difference);
    }
    std::printf("  speed-up of the tuned layout, conversions included: %.2fx\n",
                variants[0].best_seconds_per_step / variants[1].best_seconds_per_step);
  }
  return all_right ? 0 : 1;
}

int main(int argc, char** argv) {
  // An alloy error (a bad setting such as ALLOY_CAPTURE_LIMIT, a device that
  // fails) is printed with its reason, not left to std::terminate.
  try {
    return run(argc, argv);
  } catch (const alloy::Error& error) {
    std::fprintf(stderr, "%s: %s\n", "nbody", error.what());
    return 1;
  }
}
