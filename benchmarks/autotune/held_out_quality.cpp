// (f) Tuning quality on kernels alloy has never seen: three kernels written
// as an application would write them, each swept exhaustively once, then
// tuned with the default strategy and budget three times; each pick is
// re-timed beside the exhaustive top 5 and the default, taking turns.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "alloy/autotune/confirmation.hpp"
#include "alloy/autotune/statistics.hpp"
#include "alloy/autotune/tuner.hpp"
#include "bench_autotune.hpp"
#include "held_out_kernels.hpp"

namespace alloy::bench {
namespace {

nlohmann::json one_kernel(Runtime& runtime, Device& device, const HeldOut& held_out, unsigned repeats,
                          unsigned rounds) {
  const TunableKernel& kernel = held_out.target.kernel;
  std::fprintf(stderr, "(f) %s %s: exhaustive sweep\n", kernel.name.c_str(), held_out.problem.to_string().c_str());
  // The sweep: every configuration, no confirmation; its ranking is what
  // the picks are compared with.
  autotune::TuneOptions sweep_options;
  sweep_options.strategy = "exhaustive";
  sweep_options.confirm.enabled = false;
  std::vector<autotune::Measurement> swept;
  sweep_options.on_progress = [&](const autotune::TuningProgress& progress) { swept.push_back(progress.last); };
  autotune::ResultsLog sweep_log({});
  const autotune::TuningResult sweep =
      autotune::tune(runtime, device, held_out.target, held_out.problem, sweep_options, sweep_log);
  std::erase_if(swept, [](const autotune::Measurement& m) { return m.outcome != autotune::Outcome::ok; });
  std::sort(swept.begin(), swept.end(), [](const auto& a, const auto& b) { return a.seconds < b.seconds; });

  std::vector<Configuration> candidates;
  auto add = [&](const Configuration& configuration) {
    if (std::find(candidates.begin(), candidates.end(), configuration) == candidates.end()) {
      candidates.push_back(configuration);
    }
  };
  const std::size_t top = std::min<std::size_t>(5, swept.size());
  for (std::size_t i = 0; i < top; ++i) add(swept[i].configuration);
  add(kernel.default_configuration());
  nlohmann::json picks = nlohmann::json::array();
  std::vector<Configuration> picked;
  for (unsigned repeat = 1; repeat <= repeats; ++repeat) {
    std::fprintf(stderr, "(f) %s: tuning, repeat %u of %u\n", kernel.name.c_str(), repeat, repeats);
    autotune::ResultsLog log({});
    const autotune::TuningResult result =
        autotune::tune(runtime, device, held_out.target, held_out.problem, default_tune_options(repeat), log);
    if (!result.best) throw Error("(f) " + kernel.name + ": tuning found no configuration");
    picked.push_back(*result.best);
    add(*result.best);
    picks.push_back({{"configuration", describe(kernel, *result.best)},
                     {"evaluations", result.evaluations},
                     {"wall_seconds", result.wall_seconds},
                     {"stopped_by", result.stopped_by},
                     {"confirmation_rounds", result.confirmation_rounds}});
  }

  // Every candidate re-timed in the same rounds, in a rotating order.
  std::fprintf(stderr, "(f) %s: re-timing %zu configurations, %u rounds\n", kernel.name.c_str(),
               candidates.size(), rounds);
  const std::vector<double> medians =
      side_by_side_medians(runtime, device, held_out.target, held_out.problem, candidates, rounds);
  double best_of_top = medians[0];
  for (std::size_t i = 0; i < top; ++i) best_of_top = std::min(best_of_top, medians[i]);
  auto median_of = [&](const Configuration& configuration) {
    return medians[std::size_t(std::find(candidates.begin(), candidates.end(), configuration) - candidates.begin())];
  };
  bool all_within = true;
  for (std::size_t r = 0; r < picked.size(); ++r) {
    const double ratio = median_of(picked[r]) / best_of_top;
    picks[r]["seconds"] = median_of(picked[r]);
    picks[r]["vs_exhaustive_best"] = ratio;
    all_within = all_within && ratio <= 1.10;
  }
  nlohmann::json top_five = nlohmann::json::array();
  for (std::size_t i = 0; i < top; ++i) {
    top_five.push_back({{"configuration", describe(kernel, candidates[i])},
                        {"sweep_seconds", swept[i].seconds},
                        {"seconds", medians[i]}});
  }
  return {{"kernel", kernel.name},
          {"problem", held_out.problem.to_string()},
          {"space_size", sweep.space_size},
          {"sweep_ok", swept.size()},
          {"exhaustive_top5", top_five},
          {"exhaustive_best_seconds", best_of_top},
          {"default_vs_exhaustive_best", median_of(kernel.default_configuration()) / best_of_top},
          {"picks", picks},
          {"rounds", rounds},
          {"every_pick_within_1_10", all_within}};
}

}  // namespace

nlohmann::json held_out_quality(Runtime& runtime, Device& device, unsigned repeats, unsigned rounds) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const HeldOut& held_out : {held_out_jacobi(), held_out_gemv(), held_out_histogram()}) {
    kernels.push_back(one_kernel(runtime, device, held_out, repeats, rounds));
  }
  return kernels;
}

}  // namespace alloy::bench
