// (d) Triad bandwidth: as the profiles configure it, with its defaults, and
// over every work-group size with one element per work-item (the sweep).
#include <cstdio>

#include "alloy/kernel_library.hpp"
#include "bench_autotune.hpp"

namespace alloy::bench {

nlohmann::json triad_bandwidth(Runtime& runtime, Device& device, std::size_t elements) {
  const TunableKernel& triad = kernel_library::triad();
  const Extent problem(elements);
  std::fprintf(stderr, "(d) triad over %zu floats: tuned, default, work-group sweep\n", elements);
  auto queue = device.create_queue();
  const std::size_t bytes = elements * sizeof(float);
  auto a = device.allocate(bytes);
  auto b = device.allocate(bytes);
  auto c = device.allocate(bytes);
  const float one = 1.0f;
  queue->fill(*b, 0, &one, sizeof one, bytes);
  queue->fill(*c, 0, &one, sizeof one, bytes);
  queue->finish();
  const std::vector<KernelArg> args = {KernelArg::from(int(elements)), KernelArg::from(3.0f),
                                       KernelArg::from(*a), KernelArg::from(*b), KernelArg::from(*c)};
  // Three arrays cross the memory bus per element: two read, one written.
  auto gigabytes_per_second = [&](double seconds) { return 3.0 * double(bytes) / seconds * 1e-9; };
  auto time_configuration = [&](const Configuration& configuration) {
    auto kernel = runtime.program(device, configured_source(triad, configuration))->kernel(triad.kernel_name);
    return time_launches(device, *kernel, configured_launch(triad, configuration, problem), args, 15);
  };

  const TunedKernel tuned = runtime.tuned(device, triad, problem);
  const double tuned_rate = gigabytes_per_second(time_launches(device, *tuned.kernel, tuned.range, args, 15));
  const double default_rate = gigabytes_per_second(time_configuration(triad.default_configuration()));
  nlohmann::json sweep = nlohmann::json::object();
  double best_sweep = 0;
  const std::size_t wgs = *triad.parameter_index("WGS");
  const std::size_t wpt = *triad.parameter_index("WPT");
  for (std::int64_t group : triad.parameters[wgs].values) {
    Configuration configuration = triad.default_configuration();
    configuration[wgs] = group;
    configuration[wpt] = 1;
    if (check_configuration(triad, configuration, problem, DeviceLimits::of(device.info()))) continue;
    const double rate = gigabytes_per_second(time_configuration(configuration));
    sweep[std::to_string(group)] = rate;
    best_sweep = std::max(best_sweep, rate);
  }
  return {{"elements", elements},
          {"profile_match", std::string(to_string(tuned.choice.match))},
          {"tuned_configuration", describe(triad, tuned.choice.configuration)},
          {"tuned_gbps", tuned_rate},
          {"default_gbps", default_rate},
          {"sweep_best_gbps", best_sweep},
          {"sweep_gbps_by_work_group", sweep},
          {"tuned_vs_sweep_best", tuned_rate / best_sweep},
          {"default_vs_sweep_best", default_rate / best_sweep}};
}

}  // namespace alloy::bench
