// Timing launches by device events or on the host, re-timing tuned
// configurations side by side, and finding alloy's built-in targets.
#include <algorithm>
#include <chrono>

#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/statistics.hpp"
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

std::vector<double> side_by_side_medians(Runtime& runtime, Device& device, const autotune::TuningTarget& target,
                                         const Extent& problem, const std::vector<Configuration>& candidates,
                                         unsigned rounds) {
  autotune::Evaluator evaluator(runtime, device, target, problem);
  for (const Configuration& configuration : candidates) {
    if (evaluator.measure(configuration).outcome != autotune::Outcome::ok) {
      throw Error(target.kernel.name + ": " + describe(target.kernel, configuration) + " failed when measured again");
    }
  }
  std::vector<std::vector<double>> samples(candidates.size());
  for (unsigned round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const std::size_t i = (k + round) % candidates.size();
      if (const std::optional<double> seconds = evaluator.retime(candidates[i], 3)) samples[i].push_back(*seconds);
    }
  }
  std::vector<double> medians;
  for (const std::vector<double>& times : samples) medians.push_back(autotune::summarize(times).median);
  return medians;
}

}  // namespace alloy::bench
