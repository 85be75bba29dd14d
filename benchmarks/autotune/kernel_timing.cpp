// Timing launches by device events or on the host, and finding alloy's built-in targets.
#include <algorithm>
#include <chrono>

#include "alloy/error.hpp"
#include "bench_autotune.hpp"

namespace alloy::bench {

const autotune::TuningTarget& builtin_target(const std::string& name) {
  for (const autotune::TuningTarget& target : autotune::builtin_targets()) {
    if (target.kernel.name == name) return target;
  }
  throw InvalidArgument("no built-in tuning target called " + name);
}

double time_launches(Device& device, const Kernel& kernel, const LaunchRange& range,
                     const std::vector<KernelArg>& args, unsigned repetitions, LaunchTiming timing) {
  auto queue = device.create_queue();
  for (int warm_up = 0; warm_up < 2; ++warm_up) queue->launch(kernel, range, std::span<const KernelArg>(args));
  queue->finish();
  std::vector<double> seconds;
  for (unsigned r = 0; r < repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto event = queue->launch(kernel, range, std::span<const KernelArg>(args));
    if (timing == LaunchTiming::device_events) {
      seconds.push_back(double(event->timing().duration_ns()) * 1e-9);
    } else {
      queue->finish();
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace alloy::bench
