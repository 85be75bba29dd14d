// (a) How close each strategy gets to the exhaustive optimum with 5, 10 and
// 20 % of the space, replayed offline from one exhaustive results log.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "alloy/autotune/results_log.hpp"
#include "alloy/autotune/strategy.hpp"
#include "alloy/autotune/tuner.hpp"
#include "bench_autotune.hpp"

namespace alloy::bench {

namespace {

// gemm without local-memory caching: 2610 of the full space's 10137 points
// at 512. Caching tiles costs barriers, which PoCL runs as scalar code (10x
// slower than the default on a CPU), so the optimum is never there and an
// exhaustive run of the full space would spend most of its hours on them.
autotune::TuningTarget gemm_without_caching() {
  autotune::TuningTarget target = builtin_target("alloy.gemm");
  for (const char* name : {"SA", "SB"}) {
    TuningParameter& parameter = target.kernel.parameters[*target.kernel.parameter_index(name)];
    parameter.values = {0};
    parameter.value_names = {"off"};
    parameter.default_value = 0;
  }
  return target;
}

}  // namespace

nlohmann::json strategy_quality(Runtime& runtime, Device& device, const Extent& problem,
                                const std::filesystem::path& log_file, unsigned seeds) {
  const autotune::TuningTarget target = gemm_without_caching();
  autotune::ResultsLog log(log_file);
  // Exhaustive, resumed from whatever the log already holds.
  autotune::TuneOptions options;
  options.strategy = "exhaustive";
  options.measure.max_repetitions = 5;
  std::fprintf(stderr, "(a) exhaustive gemm %s into %s (resumes where it stopped)\n",
               problem.to_string().c_str(), log_file.string().c_str());
  options.on_progress = [](const autotune::TuningProgress& progress) {
    if (progress.evaluations % 100 == 0) {
      std::fprintf(stderr, "    %zu evaluated, %.0f s\n", progress.evaluations, progress.elapsed_seconds);
    }
  };
  const autotune::TuningResult exhaustive = autotune::tune(runtime, device, target, problem, options, log);

  const autotune::SearchSpace space(target.kernel, problem, DeviceLimits::of(device.info()));
  const autotune::LogKey key{target.kernel.name, target.kernel.source_hash(), device.info().fingerprint(), problem};
  std::vector<std::optional<double>> seconds_of(space.size());
  for (const autotune::Measurement& measurement : log.measurements(key, target.kernel)) {
    if (const auto point = space.find(measurement.configuration)) seconds_of[*point] = measurement.time();
  }
  double optimum = INFINITY;
  for (const auto& seconds : seconds_of) {
    if (seconds) optimum = std::min(optimum, *seconds);
  }

  nlohmann::json strategies = nlohmann::json::object();
  for (const std::string& name : autotune::strategy_names()) {
    if (name == "exhaustive") continue;
    nlohmann::json by_fraction = nlohmann::json::object();
    for (double fraction : {0.05, 0.10, 0.20}) {
      std::vector<double> ratios;
      for (unsigned seed = 1; seed <= seeds; ++seed) {
        auto strategy = autotune::make_strategy(name, space, seed);
        autotune::Budget budget;
        budget.space_fraction = fraction;
        const auto steps = autotune::replay(*strategy, budget, space.size(),
                                            [&](std::size_t point) { return seconds_of[point]; });
        const std::optional<double> best = steps.empty() ? std::nullopt : steps.back().best;
        ratios.push_back(best ? optimum / *best : 0.0);
      }
      std::sort(ratios.begin(), ratios.end());
      const auto within_5_percent =
          std::count_if(ratios.begin(), ratios.end(), [](double r) { return r >= 1.0 / 1.05; });
      char key_text[16];
      std::snprintf(key_text, sizeof key_text, "%.0f%%", fraction * 100);
      by_fraction[key_text] = {{"median_ratio_to_optimum", ratios[ratios.size() / 2]},
                               {"worst_ratio_to_optimum", ratios.front()},
                               {"seeds_within_5_percent", within_5_percent},
                               {"seeds", seeds}};
    }
    strategies[name] = by_fraction;
  }
  const auto ok_entry = exhaustive.outcomes.find(autotune::Outcome::ok);
  const std::size_t ok = ok_entry == exhaustive.outcomes.end() ? 0 : ok_entry->second;
  return {{"kernel", target.kernel.name + " without local-memory caching (SA=SB=off)"},
          {"problem", problem.to_string()},
          {"space_size", space.size()},
          {"measured", exhaustive.evaluations},
          {"failures", exhaustive.evaluations - ok},
          {"optimum_seconds", optimum},
          {"optimum_gflops", 2.0 * double(problem[0]) * double(problem[1]) * double(problem[2]) / optimum * 1e-9},
          {"strategies", strategies}};
}

}  // namespace alloy::bench
