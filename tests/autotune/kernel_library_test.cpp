// alloy's tunable kernels on every device: the default configuration and a
// seeded sample of the tuning space, drawn within a time budget, each match
// the harness's host reference.
// The sample's seed is printed; ALLOY_KERNEL_SEED=<seed> replays one.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>

#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/harness.hpp"
#include "alloy/autotune/search_space.hpp"
#include "alloy/kernel_library.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using namespace std::chrono_literals;

using autotune::HarnessArgument;
using autotune::SearchSpace;
using autotune::TuningTarget;

const TuningTarget& target(const std::string& name) {
  const std::vector<TuningTarget>& targets = autotune::builtin_targets();
  const auto found = std::find_if(targets.begin(), targets.end(),
                                  [&](const TuningTarget& t) { return t.kernel.name == name; });
  REQUIRE_MESSAGE(found != targets.end(), "no built-in target " << name);
  return *found;
}

unsigned sample_seed() {
  if (const char* text = std::getenv("ALLOY_KERNEL_SEED")) {
    return static_cast<unsigned>(std::strtoul(text, nullptr, 10));
  }
  return std::random_device{}();
}

// One timed run is enough here: these tests check results, not speed. PoCL
// compiles a kernel for each work-group size at its first launch, which under
// ThreadSanitizer's interceptors takes longer than the tuner's 10 s timeout;
// a slow run must not count as a wrong one.
autotune::MeasureOptions run_once() {
  autotune::MeasureOptions options;
  options.min_repetitions = 1;
  options.max_repetitions = 1;
  options.timeout_seconds = 300;
  return options;
}

// A case draws its random configurations while a time budget lasts, so that
// it costs about the same every run whatever the draw: the first compile and
// run of a configuration on PoCL takes from 0.1 s to over 10 s. The checks
// of a case share its budget: each gets an equal part of what is left.
// ALLOY_KERNEL_SAMPLE_SECONDS=S gives every case S seconds instead, for long
// runs by hand.
class SampleBudget {
 public:
  SampleBudget(std::chrono::duration<double> seconds, int checks) : checks_left_(checks) {
    if (const char* text = std::getenv("ALLOY_KERNEL_SAMPLE_SECONDS"); text && *text) {
      seconds = std::chrono::duration<double>(std::strtod(text, nullptr));
    }
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<Clock::duration>(seconds);
  }
  /// The time the next check may spend drawing.
  std::chrono::duration<double> next_share() {
    const auto left = std::max(Clock::duration::zero(), deadline_ - Clock::now());
    return left / std::max(1, checks_left_--);
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline_;
  int checks_left_;
};

/// The default configuration and up to `sample` more, drawn from the space
/// with a printed seed while the check's share of `budget` lasts on the first
/// device (the others check the same ones), each run by the tuner's
/// evaluator, which checks the outputs against the harness's host reference.
void check_target(const std::string& name, const Extent& problem, int sample, SampleBudget& case_budget) {
  const std::chrono::duration<double> budget = case_budget.next_share();
  const TuningTarget& t = target(name);
  t.kernel.validate();
  const unsigned seed = sample_seed();
  std::optional<std::size_t> drawn;  // how many the first device had time for
  for_each_device([&](Device& device) {
    if (t.kernel.source.options.find("REAL=double") != std::string::npos && !device.info().fp64) {
      skip(device.label() + " has no double precision (cl_khr_fp64)");
      return;
    }
    const SearchSpace space(t.kernel, problem, DeviceLimits::of(device.info()));
    const std::optional<std::size_t> default_point = space.default_point();
    REQUIRE_MESSAGE(default_point, "the default " << describe(t.kernel, t.kernel.default_configuration())
                                                  << " is not valid for " << problem.to_string());
    autotune::Evaluator evaluator(runtime(), device, t, problem, run_once());
    int refused = 0;
    auto check = [&](std::size_t point) {
      const Configuration configuration = space.configuration(point);
      const autotune::Measurement measurement = evaluator.measure(configuration);
      INFO(name << " " << describe(t.kernel, configuration) << " on " << device.label() << " (seed "
                << seed << "): " << to_string(measurement.outcome) << " " << measurement.detail);
      // A GPU may compile a configuration for smaller groups than the space
      // allows (registers); the launch is then refused, never run wrongly.
      if (measurement.outcome == autotune::Outcome::launch_refused) {
        ++refused;
        return;
      }
      CHECK(measurement.outcome == autotune::Outcome::ok);
    };
    const auto started = std::chrono::steady_clock::now();
    check(*default_point);
    std::mt19937 random(seed);
    std::size_t count = 0;
    auto more = [&] {
      if (drawn) return count < *drawn;
      return count < static_cast<std::size_t>(sample) && std::chrono::steady_clock::now() - started < budget;
    };
    for (; more(); ++count) check(random() % space.size());
    if (!drawn) {
      drawn = count;
      MESSAGE(name << " " << problem.to_string() << ": sample seed " << seed << ", " << count
                   << " configurations beside the default within " << budget.count() << " s");
    }
    if (refused > 0) MESSAGE(refused << " configurations needed larger work-groups than compiled");
  });
}

}  // namespace

TEST_CASE("KernelLibrary.Descriptions.consistent") {
  // The harness's arguments follow the kernel's declared parameters, and
  // every default is the source's own and valid for the default problems.
  for (const TuningTarget& t : autotune::builtin_targets()) {
    CAPTURE(t.kernel.name);
    CHECK_NOTHROW(t.kernel.validate());
    const std::optional<KernelSignature> signature =
        find_kernel_signature(t.kernel.source.source, t.kernel.kernel_name);
    REQUIRE(signature);
    REQUIRE(signature->parameters.size() == t.harness.arguments.size());
    for (std::size_t i = 0; i < t.harness.arguments.size(); ++i) {
      const KernelParameter& parameter = signature->parameters[i];
      CAPTURE(parameter.name);
      switch (t.harness.arguments[i].kind) {
        case HarnessArgument::Kind::buffer:
          CHECK(parameter.kind == KernelParameter::Kind::global_pointer);
          break;
        case HarnessArgument::Kind::problem_dimension:
        case HarnessArgument::Kind::int_constant:
          CHECK(parameter.scalar_type == ScalarType::i32);
          break;
        case HarnessArgument::Kind::float_constant:
          CHECK(parameter.scalar_type == ScalarType::f32);
          break;
        case HarnessArgument::Kind::scalar:
          CHECK(parameter.scalar_type == t.harness.arguments[i].value.scalar_type);
          break;
      }
    }
    for (const TuningParameter& parameter : t.kernel.parameters) {
      CAPTURE(parameter.name);
      // A layout parameter is read by the runtime, which defines AT2 for
      // it; the source has a default of its own for every other.
      const bool chooses_layout =
          std::any_of(t.kernel.matrices.begin(), t.kernel.matrices.end(),
                      [&](const MatrixArgument& matrix) { return matrix.layout == parameter.name; });
      if (chooses_layout) continue;
      const std::string define = "#define " + parameter.name + " " + std::to_string(parameter.default_value);
      CHECK(t.kernel.source.source.find(define) != std::string::npos);
    }
    for (const Extent& problem : t.default_problems) {
      CAPTURE(problem.to_string());
      CHECK_FALSE(check_configuration(t.kernel, t.kernel.default_configuration(), problem, {}));
      // A starting point outside the space would be skipped without a word.
      for (const Configuration& starting_point : t.starting_points) {
        CAPTURE(describe(t.kernel, starting_point));
        CHECK_FALSE(check_configuration(t.kernel, starting_point, problem, {}));
      }
    }
    CHECK_FALSE(t.description.empty());
  }
}

// Distinct M, N and K, so a swapped dimension shows.
TEST_CASE("KernelLibrary.Gemm.matches_host") {
  SampleBudget budget(15s, 1);
  check_target("alloy.gemm", Extent(256, 128, 96), 12, budget);
}

// Any size: one element, primes, and sizes that no tile divides (the
// default's 16 x 16 x 8 nor any of the space's), so edge tiles and the last
// partial step along K are checked, in every variant.
TEST_CASE("KernelLibrary.Gemm.any_size") {
  SampleBudget budget(10s, 3);
  for (const Extent& problem : {Extent(1, 1, 1), Extent(7, 13, 29), Extent(1000, 1537, 77)}) {
    check_target("alloy.gemm", problem, 2, budget);
  }
}

TEST_CASE("KernelLibrary.Gemm.transposed_operands") {
  SampleBudget budget(10s, 3);
  for (const char* name : {"alloy.gemm.tn", "alloy.gemm.nt", "alloy.gemm.tt"}) {
    check_target(name, Extent(67, 45, 129), 2, budget);
  }
}

TEST_CASE("KernelLibrary.Gemm.double_precision") {
  SampleBudget budget(8s, 1);
  check_target("alloy.dgemm", Extent(100, 37, 61), 3, budget);
}

// Neither side a multiple of any tile: the bounds checks are exercised.
TEST_CASE("KernelLibrary.Transpose.matches_host") {
  SampleBudget budget(5s, 3);
  for (const Extent& problem : {Extent(100, 37), Extent(1, 1), Extent(1537, 1000)}) {
    check_target("alloy.transpose", problem, 6, budget);
  }
}

// Prime-ish n: the last group is partial for every WGS and WPT.
TEST_CASE("KernelLibrary.Reduce.matches_host") {
  SampleBudget budget(5s, 3);
  for (const Extent& problem : {Extent(100003), Extent(1), Extent(1537)}) check_target("alloy.reduce", problem, 6, budget);
}

TEST_CASE("KernelLibrary.Triad.matches_host") {
  SampleBudget budget(5s, 3);
  for (const Extent& problem : {Extent(100003), Extent(1), Extent(1537)}) check_target("alloy.triad", problem, 6, budget);
}

TEST_CASE("KernelLibrary.Launch.work_group_beyond_compiled_limit_is_refused") {
  // The space honours the device's work-group limit, but a compiled kernel
  // may take fewer (registers on a GPU). The largest group of each kernel,
  // run by the evaluator, either runs right or is refused.
  for_each_device([](Device& device) {
    bool provoked = false;
    for (const TuningTarget& t : autotune::builtin_targets()) {
      const bool gemm = t.kernel.kernel_name == "gemm";
      const Extent problem = gemm ? Extent(256, 256, 64) : Extent(4096, 64);
      const Extent shaped = t.kernel.launch.size() == 1 ? Extent(problem[0] * problem[1]) : problem;
      const SearchSpace space(t.kernel, shaped, DeviceLimits::of(device.info()));
      REQUIRE(space.size() > 0);
      std::size_t largest = 0;
      std::size_t largest_group = 0;
      for (std::size_t point = 0; point < space.size(); ++point) {
        const LaunchRange range = configured_launch(t.kernel, space.configuration(point), shaped);
        const std::size_t group = range.local ? range.local->count() : 0;  // none: the driver's choice
        if (group > largest_group) {
          largest = point;
          largest_group = group;
        }
      }
      const Configuration configuration = space.configuration(largest);
      auto program = runtime().program(device, configured_source(t.kernel, configuration));
      const bool beyond =
          program->kernel(t.kernel.kernel_name)->attributes().max_work_group_size < largest_group;
      provoked = provoked || beyond;
      autotune::Evaluator evaluator(runtime(), device, t, shaped, run_once());
      const autotune::Measurement measurement = evaluator.measure(configuration);
      INFO(t.kernel.name << " " << describe(t.kernel, configuration) << " on " << device.label() << ": "
                         << to_string(measurement.outcome) << " " << measurement.detail);
      CHECK(measurement.outcome == (beyond ? autotune::Outcome::launch_refused : autotune::Outcome::ok));
    }
    if (!provoked) {
      MESSAGE("every kernel on " << device.label()
                                 << " takes its largest configured work-group; nothing to refuse");
    }
  });
}

}  // namespace alloy::test
