// (b) Tuning wall time per configuration with parallel compilation on and
// off. Both runs measure the same configurations (same strategy and seed),
// each in its own Runtime with a memory-only compile cache, and PoCL's own
// binary cache is off (POCL_KERNEL_CACHE=0, set in main), so every
// configuration is compiled in both runs.
#include <cstdio>

#include "alloy/autotune/tuner.hpp"
#include "alloy/error.hpp"
#include "bench_autotune.hpp"

namespace alloy::bench {

nlohmann::json compile_overlap(Device& device, const Extent& problem, std::size_t evaluations) {
  const autotune::TuningTarget& target = builtin_target("alloy.gemm");
  const std::string fingerprint = device.info().fingerprint();
  auto run = [&](autotune::CompileOverlap overlap) {
    RuntimeOptions options;
    options.cache_dir = std::filesystem::path();  // memory only: compile everything
    Runtime runtime(options);
    Device* same = nullptr;
    for (Device* candidate : runtime.devices()) {
      if (candidate->info().fingerprint() == fingerprint) {
        same = candidate;
        break;
      }
    }
    if (same == nullptr) throw Error("(b): the device is gone from a second Runtime");
    autotune::ResultsLog log{std::filesystem::path()};
    autotune::TuneOptions tune;
    tune.strategy = "random";
    tune.seed = 7;
    tune.budget.evaluations = evaluations;
    tune.overlap = overlap;
    tune.measure.max_repetitions = 5;
    const autotune::TuningResult result = autotune::tune(runtime, *same, target, problem, tune, log);
    return result.wall_seconds / double(result.evaluations);
  };
  const autotune::CompileOverlap parallel = device.info().type == DeviceType::cpu
                                                ? autotune::CompileOverlap::between_measurements
                                                : autotune::CompileOverlap::during_measurement;
  std::fprintf(stderr, "(b) %zu gemm configurations, compiling serially, then in parallel\n", evaluations);
  const double serial_seconds = run(autotune::CompileOverlap::off);
  const double parallel_seconds = run(parallel);
  return {{"kernel", target.kernel.name},
          {"problem", problem.to_string()},
          {"evaluations", evaluations},
          {"parallel_mode", parallel == autotune::CompileOverlap::between_measurements
                                ? "between_measurements"
                                : "during_measurement"},
          {"seconds_per_configuration_serial", serial_seconds},
          {"seconds_per_configuration_parallel", parallel_seconds},
          {"speedup", serial_seconds / parallel_seconds}};
}

}  // namespace alloy::bench
