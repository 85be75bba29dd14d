// (g) Tuning under load: the same tuning run on a quiet machine and beside
// two CPU-bound processes the benchmark starts, then both picks re-timed
// side by side once the machine is quiet again. On a CPU device the load
// shares the device's cores, which is what a build or a second job does to
// a workstation's tuning run.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "alloy/autotune/tuner.hpp"
#include "bench_autotune.hpp"
#include "held_out_kernels.hpp"

namespace alloy::bench {
namespace {

// Processes that spin until this is destroyed. Each also ends by itself
// after `seconds`, and with the benchmark: a crash leaves none behind.
class BackgroundLoad {
 public:
  BackgroundLoad(unsigned processes, unsigned seconds) {
    for (unsigned i = 0; i < processes; ++i) {
      const pid_t child = ::fork();
      if (child == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::alarm(seconds);
        volatile std::uint64_t spin = 0;
        for (;;) spin = spin + 1;
      }
      if (child < 0) throw Error("(g) could not start a background process (fork failed)");
      children_.push_back(child);
    }
  }
  ~BackgroundLoad() {
    for (const pid_t child : children_) ::kill(child, SIGKILL);
    for (const pid_t child : children_) ::waitpid(child, nullptr, 0);
  }
  BackgroundLoad(const BackgroundLoad&) = delete;
  BackgroundLoad& operator=(const BackgroundLoad&) = delete;

 private:
  std::vector<pid_t> children_;
};

nlohmann::json tuning_summary(const TunableKernel& kernel, const autotune::TuningResult& result) {
  return {{"configuration", describe(kernel, *result.best)},
          {"tuner_seconds", *result.best_seconds},
          {"provisional", result.provisional},
          {"noise", result.noise ? nlohmann::json(*result.noise) : nlohmann::json(nullptr)},
          {"others_share", result.host_others ? nlohmann::json(*result.host_others) : nlohmann::json(nullptr)},
          {"evaluations", result.evaluations},
          {"confirmation_rounds", result.confirmation_rounds}};
}

nlohmann::json one_case(Runtime& runtime, Device& device, const HeldOut& tuned, unsigned background,
                        unsigned rounds) {
  const TunableKernel& kernel = tuned.target.kernel;
  auto tune_once = [&](const char* how) {
    std::fprintf(stderr, "(g) %s %s: tuning %s\n", kernel.name.c_str(), tuned.problem.to_string().c_str(), how);
    autotune::ResultsLog log({});
    autotune::TuningResult result =
        autotune::tune(runtime, device, tuned.target, tuned.problem, default_tune_options(1), log);
    if (!result.best) throw Error("(g) " + kernel.name + ": tuning " + how + " found no configuration");
    return result;
  };
  const autotune::TuningResult quiet = tune_once("on a quiet machine");
  autotune::TuningResult loaded;
  {
    // Bounded: ten minutes is far more than one default tuning run takes.
    const BackgroundLoad load(background, 600);
    loaded = tune_once("beside the background processes");
  }

  // Quiet again: both picks and the default, taking turns.
  std::fprintf(stderr, "(g) %s: re-timing the two picks and the default, %u rounds\n", kernel.name.c_str(), rounds);
  const std::vector<Configuration> candidates = {*quiet.best, *loaded.best, kernel.default_configuration()};
  const std::vector<double> medians =
      side_by_side_medians(runtime, device, tuned.target, tuned.problem, candidates, rounds);
  const double quiet_seconds = medians[0];
  const double loaded_seconds = medians[1];
  const double ratio = loaded_seconds / quiet_seconds;
  nlohmann::json quiet_json = tuning_summary(kernel, quiet);
  quiet_json["seconds"] = quiet_seconds;
  nlohmann::json loaded_json = tuning_summary(kernel, loaded);
  loaded_json["seconds"] = loaded_seconds;
  return {{"kernel", kernel.name},
          {"problem", tuned.problem.to_string()},
          {"background_processes", background},
          {"quiet", quiet_json},
          {"loaded", loaded_json},
          {"default_seconds", medians[2]},
          {"loaded_vs_quiet", ratio},
          {"rounds", rounds},
          {"target_met", ratio <= 1.15 || loaded.provisional}};
}

}  // namespace

nlohmann::json tuning_under_load(Runtime& runtime, Device& device, unsigned background, unsigned rounds) {
  const HeldOut gemm{builtin_target("alloy.gemm"), Extent(1024, 1024, 1024)};
  nlohmann::json cases = nlohmann::json::array();
  for (const HeldOut& tuned : {gemm, held_out_histogram(), held_out_jacobi()}) {
    cases.push_back(one_case(runtime, device, tuned, background, rounds));
  }
  return cases;
}

}  // namespace alloy::bench
