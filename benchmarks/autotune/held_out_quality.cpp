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
#include "embedded/gemv_source.hpp"
#include "embedded/histogram_source.hpp"
#include "embedded/jacobi_source.hpp"

namespace alloy::bench {
namespace {

using autotune::HarnessArgument;
using autotune::HarnessBuffer;
using autotune::HostArray;

struct HeldOut {
  autotune::TuningTarget target;
  Extent problem;
};

HeldOut jacobi() {
  autotune::TuningTarget target;
  TunableKernel& k = target.kernel;
  k.name = "held_out.jacobi";
  k.source = {"jacobi.cl", std::string(alloy_kernels::jacobi_source), ""};
  k.kernel_name = "jacobi";
  k.parameters = {{"TX", {1, 2, 4, 8, 16, 32, 64, 128}, 16, {}},
                  {"TY", {1, 2, 4, 8, 16}, 4, {}},
                  {"PY", {1, 2, 4, 8}, 1, {}}};
  k.constraints = {{TuningConstraint::Kind::at_most, {1, {"TX", "TY"}, {}}, {256, {}, {}}}};
  k.launch = {{0, {}, {}, {1, {"TX"}, {}}}, {1, {}, {1, {"PY"}, {}}, {1, {"TY"}, {}}}};
  target.harness.buffers = {HarnessBuffer::input("in", {1, {}, {0, 1}}),
                            HarnessBuffer::checked_output("out", {1, {}, {0, 1}}, {{}, 1e-6, 1e-6})};
  target.harness.buffers[1].reset_each_run = false;  // every run writes all of it
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::buffer(0), HarnessArgument::buffer(1)};
  target.harness.reference = [](const Extent& problem, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::size_t n = problem[0];
    const std::span<const float> in = buffers[0].view<float>();
    const std::span<float> out = expected[0].view<float>();
    for (std::size_t y = 0; y < n; ++y) {
      for (std::size_t x = 0; x < n; ++x) {
        const std::size_t i = y * n + x;
        out[i] = (x == 0 || y == 0 || x == n - 1 || y == n - 1)
                     ? in[i]
                     : 0.2f * ((((in[i] + in[i - 1]) + in[i + 1]) + in[i - n]) + in[i + n]);
      }
    }
  };
  return {target, Extent(2048, 2048)};
}

HeldOut gemv() {
  autotune::TuningTarget target;
  TunableKernel& k = target.kernel;
  k.name = "held_out.gemv";
  k.source = {"gemv.cl", std::string(alloy_kernels::gemv_source), ""};
  k.kernel_name = "gemv";
  k.parameters = {{"WGS", {8, 16, 32, 64, 128, 256}, 64, {}},
                  {"ROWS", {1, 2, 4, 8}, 1, {}},
                  {"UNROLL", {1, 2, 4, 8}, 1, {}}};
  k.launch = {{0, {}, {1, {"ROWS"}, {}}, {1, {"WGS"}, {}}}};
  target.harness.buffers = {HarnessBuffer::input("a", {1, {}, {0, 1}}), HarnessBuffer::input("x", {1, {}, {1}}),
                            HarnessBuffer::checked_output("y", {1, {}, {0}}, {{}, 1e-5, 1e-4})};
  target.harness.buffers[2].reset_each_run = false;
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::dimension(1), HarnessArgument::buffer(0),
                              HarnessArgument::buffer(1), HarnessArgument::buffer(2)};
  target.harness.reference = [](const Extent& problem, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::size_t m = problem[0];
    const std::size_t n = problem[1];
    const std::span<const float> a = buffers[0].view<float>();
    const std::span<const float> x = buffers[1].view<float>();
    for (std::size_t row = 0; row < m; ++row) {
      float sum = 0.0f;  // the kernel's order, in float
      for (std::size_t c = 0; c < n; ++c) sum += a[row * n + c] * x[c];
      expected[0].view<float>()[row] = sum;
    }
  };
  return {target, Extent(4096, 2048)};
}

HeldOut histogram() {
  autotune::TuningTarget target;
  TunableKernel& k = target.kernel;
  k.name = "held_out.histogram";
  k.source = {"histogram.cl", std::string(alloy_kernels::histogram_source), ""};
  k.kernel_name = "histogram";
  k.parameters = {{"ITEMS", {1, 2, 4, 8, 16, 32}, 1, {}},
                  {"WGS", {0, 32, 64, 128, 256}, 64, {}},
                  {"STRIDED", {0, 1}, 0, {"no", "yes"}}};
  k.launch = {{0, {}, {1, {"ITEMS"}, {}}, {1, {"WGS"}, {}}}};
  // Skewed bytes: a few values are most of the input, so atomics collide.
  target.harness.buffers = {
      HarnessBuffer::input("in", {1, {}, {0}}, HarnessBuffer::Fill::skewed, ScalarType::u8),
      HarnessBuffer::checked_output("bins", {256, {}, {}}, {}, ScalarType::i32)};
  target.harness.arguments = {HarnessArgument::dimension(0, ScalarType::u64), HarnessArgument::buffer(0),
                              HarnessArgument::buffer(1)};
  target.harness.reference = [](const Extent&, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::span<std::int32_t> bins = expected[0].view<std::int32_t>();
    for (std::uint8_t byte : buffers[0].view<std::uint8_t>()) ++bins[byte];
  };
  return {target, Extent(std::size_t{1} << 24)};
}

// The `autotune` command's default budget.
autotune::TuneOptions default_options(std::uint64_t seed) {
  autotune::TuneOptions options;
  options.budget.wall_time = std::chrono::duration<double>(60);
  options.budget.stall = 40;
  options.seed = seed;
  return options;
}

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
        autotune::tune(runtime, device, held_out.target, held_out.problem, default_options(repeat), log);
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
  autotune::Evaluator evaluator(runtime, device, held_out.target, held_out.problem);
  for (const Configuration& configuration : candidates) {
    if (evaluator.measure(configuration).outcome != autotune::Outcome::ok) {
      throw Error("(f) " + kernel.name + ": " + describe(kernel, configuration) + " failed when measured again");
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
  for (const auto& s : samples) medians.push_back(autotune::summarize(s).median);
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
  for (const HeldOut& held_out : {jacobi(), gemv(), histogram()}) {
    kernels.push_back(one_kernel(runtime, device, held_out, repeats, rounds));
  }
  return kernels;
}

}  // namespace alloy::bench
