// What makes a tuning result trustworthy on a real device: integer outputs
// checked exactly, no configuration lost to one slow run, and a wall-time
// budget that covers everything the tuner does.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/tuner.hpp"
#include "embedded/tuning_checks_source.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using autotune::HarnessArgument;
using autotune::HarnessBuffer;
using autotune::HostArray;
using autotune::Outcome;

constexpr std::size_t count_items = 1 << 14;

// offset_counts with ERROR in {0, 1, 1024}; its host reference is exact.
autotune::TuningTarget counts_target() {
  autotune::TuningTarget target;
  TunableKernel& kernel = target.kernel;
  kernel.name = "test.offset_counts";
  kernel.source = {"tuning_checks.cl", std::string(alloy_kernels::tuning_checks_source), ""};
  kernel.kernel_name = "offset_counts";
  kernel.parameters = {{"ERROR", {0, 1, 1024}, 0, {}}, {"WGS", {16, 32}, 16, {}}};
  kernel.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
  target.harness.buffers = {HarnessBuffer::input("in", {1, {}, {0}}, HarnessBuffer::Fill::random,
                                                 ScalarType::u32),
                            HarnessBuffer::checked_output("out", {1, {}, {0}}, {}, ScalarType::u32)};
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::buffer(0),
                              HarnessArgument::buffer(1)};
  target.harness.reference = [](const Extent&, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::span<const std::uint32_t> in = buffers[0].view<std::uint32_t>();
    const std::span<std::uint32_t> out = expected[0].view<std::uint32_t>();
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] + 7u;
  };
  return target;
}

/// A kernel of tuning_checks.cl that spins, then writes out = 2 × in,
/// with a third buffer of ints at zero that it keeps across runs; its
/// spinning unit is `unit` iterations on a CPU and 267 times that on a GPU,
/// which runs the work-items side by side.
autotune::TuningTarget doubling_target(const Device& device, const std::string& kernel_name, int unit,
                                       std::vector<TuningParameter> parameters, ScalarType kept) {
  autotune::TuningTarget target;
  TunableKernel& kernel = target.kernel;
  kernel.name = "test." + kernel_name;
  const int iterations = computes_on_cpu(device) ? unit : unit * 267;
  kernel.source = {"tuning_checks.cl", std::string(alloy_kernels::tuning_checks_source),
                   "-DUNIT=" + std::to_string(iterations)};
  kernel.kernel_name = kernel_name;
  kernel.parameters = std::move(parameters);
  kernel.launch = {{0, {}, {}, {16, {}, {}}}};
  target.harness.buffers = {HarnessBuffer::input("in", {1, {}, {0}}),
                            HarnessBuffer::checked_output("out", {1, {}, {0}}),
                            HarnessBuffer::input("kept", {1, {}, {0}}, HarnessBuffer::Fill::zeros, kept)};
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::buffer(0),
                              HarnessArgument::buffer(1), HarnessArgument::buffer(2)};
  target.harness.reference = [](const Extent&, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::span<const float> in = buffers[0].view<float>();
    const std::span<float> out = expected[0].view<float>();
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = 2.0f * in[i];
  };
  return target;
}

// spin_work with WORK in {1, 2, 3, 4} units, the default 4; every
// configuration's first run after its inputs are written is 12 units slower.
// A unit is about a millisecond: a GPU runs the work-items side by side, a
// CPU a few at a time.
autotune::TuningTarget spin_target(const Device& device) {
  return doubling_target(device, "spin_work", 1500, {{"WORK", {1, 2, 3, 4}, 4, {}}}, ScalarType::i32);
}

// grow_work: 1 unit a run from a reset output, one more each run without.
autotune::TuningTarget grow_target(const Device& device) {
  autotune::TuningTarget target;
  TunableKernel& kernel = target.kernel;
  kernel.name = "test.grow_work";
  const char* unit = computes_on_cpu(device) ? "-DUNIT=1500" : "-DUNIT=400000";
  kernel.source = {"tuning_checks.cl", std::string(alloy_kernels::tuning_checks_source), unit};
  kernel.kernel_name = "grow_work";
  kernel.parameters = {{"WGS", {16}, 16, {}}};
  kernel.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
  target.harness.buffers = {HarnessBuffer::checked_output("out", {1, {}, {0}})};
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::buffer(0)};
  target.harness.reference = [](const Extent&, const std::vector<HostArray>&, std::vector<HostArray>& expected) {
    for (float& value : expected[0].view<float>()) value = 1.0f;
  };
  return target;
}

// noisy_work with two equally fast VARIANTs, on what acts as a busy
// device: every run takes 2 to 9 units, at random. A unit is about 0.2 ms
// on a CPU (PoCL runs the 16 work-items as one vector), so that the spread
// stays far above the timer's steps and what a launch itself costs (an
// emulated device's launch adds OpenCL buffers and a map around it).
autotune::TuningTarget noisy_target(const Device& device) {
  const int unit = computes_on_cpu(device) ? 12000 : 150;  // doubling_target scales GPU units
  return doubling_target(device, "noisy_work", unit, {{"VARIANT", {0, 1}, 0, {}}}, ScalarType::u32);
}

// byte_histogram over skewed bytes (most of them a few values, so atomics
// collide), n passed as a 64-bit ulong, bins checked exactly.
autotune::TuningTarget histogram_target() {
  autotune::TuningTarget target;
  TunableKernel& kernel = target.kernel;
  kernel.name = "test.byte_histogram";
  kernel.source = {"tuning_checks.cl", std::string(alloy_kernels::tuning_checks_source), ""};
  kernel.kernel_name = "byte_histogram";
  kernel.parameters = {{"ITEMS", {1, 4, 16}, 1, {}}, {"WGS", {0, 32, 64}, 32, {}}};
  kernel.launch = {{0, {}, {1, {"ITEMS"}, {}}, {1, {"WGS"}, {}}}};
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
  return target;
}

const autotune::TuningTarget& builtin(const std::string& name) {
  for (const autotune::TuningTarget& target : autotune::builtin_targets()) {
    if (target.kernel.name == name) return target;
  }
  throw Error("no builtin target " + name);
}

}  // namespace

TEST_CASE("Autotune.Evaluator.integer_results_off_by_one_are_wrong") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = counts_target();
    const Extent problem(count_items);
    autotune::Evaluator evaluator(runtime(), device, target, problem);
    CHECK(evaluator.measure({0, 32}).outcome == Outcome::ok);
    for (std::int64_t error : {1, 1024}) {
      CAPTURE(error);
      const autotune::Measurement wrong = evaluator.measure({error, 32});
      CHECK(wrong.outcome == Outcome::wrong_result);
      // One element, named, with both values in full.
      CHECK(wrong.detail.find("1 of 16384 elements wrong") != std::string::npos);
      CHECK(wrong.detail.find("element " + std::to_string(count_items / 3)) != std::string::npos);
      MESSAGE(wrong.detail);
    }
    // Without a host reference the default's outputs are the reference:
    // compared exactly as well.
    autotune::TuningTarget no_reference = target;
    no_reference.harness.reference = nullptr;
    autotune::Evaluator by_default(runtime(), device, no_reference, problem);
    CHECK(by_default.measure({0, 32}).outcome == Outcome::ok);
    CHECK(by_default.measure({1, 16}).outcome == Outcome::wrong_result);

    // And a wrong one never becomes the tuned best.
    autotune::ResultsLog log({});
    autotune::TuneOptions options;
    options.strategy = "exhaustive";
    const autotune::TuningResult result = autotune::tune(runtime(), device, target, problem, options, log);
    CHECK(result.outcomes.at(Outcome::wrong_result) == 4);
    REQUIRE(result.best);
    CHECK((*result.best)[0] == 0);
  });
}

TEST_CASE("Autotune.Evaluator.one_timed_run_is_a_verdict_only_on_a_quiet_device") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = spin_target(device);
    // WORK = 4, the default, is timed first: it sets the device's noise.
    // Then it is timed against a best so far of a hundredth of its time, so
    // that every run of it is far slower than the best however loaded the
    // machine is (a WORK = 1 time taken under load was once half of it):
    // what is under test is how many runs that verdict takes.
    auto slow_runs = [&](double quiet_spread) {
      autotune::MeasureOptions options;
      options.quiet_spread = quiet_spread;
      autotune::Evaluator evaluator(runtime(), device, target, Extent(1024), options);
      const autotune::Measurement by_default = evaluator.measure({4});
      REQUIRE(by_default.outcome == Outcome::ok);
      const autotune::Measurement slow = evaluator.measure({4}, by_default.seconds / 100);
      INFO(slow.repetitions << " runs: " << slow.detail);
      CHECK(slow.outcome == Outcome::ok);
      return slow.repetitions;
    };
    // Any spread counts as quiet: the check run and one timed run decide.
    CHECK(slow_runs(1e9) == 1);
    // No spread does: at least a whole batch is timed.
    CHECK(slow_runs(0) >= autotune::MeasureOptions{}.min_repetitions);
  });
}

TEST_CASE("Autotune.Evaluator.one_slow_run_does_not_discard_a_configuration") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = spin_target(device);
    TemporaryFolder folder;
    autotune::ResultsLog log(folder.path / "log.jsonl");
    autotune::TuneOptions options;
    options.strategy = "exhaustive";
    std::vector<autotune::Measurement> measured;
    options.on_progress = [&](const autotune::TuningProgress& progress) { measured.push_back(progress.last); };
    const autotune::TuningResult result = autotune::tune(runtime(), device, target, Extent(1024), options, log);
    for (const autotune::Measurement& measurement : measured) {
      MESSAGE("WORK=" << measurement.configuration[0] << ": " << measurement.seconds * 1e3 << " ms over "
                      << measurement.repetitions << " runs " << measurement.detail);
    }
    REQUIRE(result.best);
    REQUIRE(result.default_seconds);
    // Every first run is 13 to 16 units, far past twice the default's 4:
    // judged on it, WORK = 1 would lose to the default.
    CHECK((*result.best)[0] == 1);
    // A quarter of the default's work, but not a quarter of its time on a
    // loaded machine: a run that is preempted gains a delay of its own
    // length, whatever that length is (CI once measured 2.3 ms against 4.4).
    CHECK(*result.best_seconds < 0.75 * *result.default_seconds);
    CHECK(result.tied == 1);
    // WORK = 1 and the default were confirmed, round by round, in the log.
    CHECK(result.confirmation_rounds >= autotune::ConfirmOptions{}.min_rounds);
    std::map<std::int64_t, unsigned> rounds;
    std::ifstream in(folder.path / "log.jsonl");
    for (std::string text; std::getline(in, text);) {
      const nlohmann::json line = nlohmann::json::parse(text);
      if (line.contains("round")) ++rounds[line["configuration"]["WORK"].get<std::int64_t>()];
    }
    CHECK(rounds[1] == result.confirmation_rounds);
    CHECK(rounds[4] >= autotune::ConfirmOptions{}.min_rounds);
  });
}

TEST_CASE("Autotune.Evaluator.outputs_are_reset_before_every_timed_run") {
  for_each_device([](Device& device) {
    autotune::MeasureOptions options;
    options.min_repetitions = options.max_repetitions = 12;  // a fixed count, for the sums below
    autotune::TuningTarget target = grow_target(device);
    autotune::Evaluator reset(runtime(), device, target, Extent(1024), options);
    const autotune::Measurement from_reset = reset.measure({16});
    target.harness.buffers[0].reset_each_run = false;
    autotune::Evaluator kept(runtime(), device, target, Extent(1024), options);
    const autotune::Measurement accumulating = kept.measure({16});
    REQUIRE(from_reset.outcome == Outcome::ok);
    REQUIRE(accumulating.outcome == Outcome::ok);
    MESSAGE("reset: " << from_reset.seconds * 1e3 << " ms (spread " << from_reset.spread
                      << "), accumulating: " << accumulating.seconds * 1e3 << " ms (spread "
                      << accumulating.spread << ") on " << device.label());
    // Runs 2..13 of an accumulating output take 2..13 units, median 7.5;
    // reset, every run takes 1.
    CHECK(accumulating.seconds > 3 * from_reset.seconds);
  });
}

TEST_CASE("Autotune.Evaluator.local_size_left_to_the_driver_runs") {
  for_each_device([](Device& device) {
    autotune::TuningTarget target = counts_target();
    target.kernel.parameters[1] = {"WGS", {0, 16, 32}, 0, {"driver", "16", "32"}};
    autotune::Evaluator evaluator(runtime(), device, target, Extent(count_items + 3));  // no group divides it
    CHECK(evaluator.measure({0, 0}).outcome == Outcome::ok);
    CHECK(evaluator.measure({0, 32}).outcome == Outcome::ok);
    CHECK(evaluator.measure({1, 0}).outcome == Outcome::wrong_result);
  });
}

TEST_CASE("Autotune.Tuner.histogram_of_skewed_bytes_with_a_64_bit_size") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = histogram_target();
    autotune::ResultsLog log({});
    autotune::TuneOptions options;
    options.strategy = "exhaustive";
    options.retime_default_every = 4;
    const autotune::TuningResult result =
        autotune::tune(runtime(), device, target, Extent((std::size_t{1} << 20) + 5), options, log);
    // Every configuration counts right, with bins reset before each timed
    // run; local size 0 included.
    CHECK(result.outcomes.at(Outcome::ok) == 9);
    CHECK(result.evaluations == 9);
    REQUIRE(result.best);
    // The default was timed again during the search (after the 4th and 8th
    // of the others): the drift is measured.
    REQUIRE(result.drift);
    // An int size argument would be refused, not truncated.
    autotune::TuningTarget narrow = target;
    narrow.harness.arguments[0] = HarnessArgument::dimension(0, ScalarType::i32);
    CHECK_THROWS_AS(autotune::Evaluator(runtime(), device, narrow, Extent(std::size_t{1} << 31)), InvalidArgument);
  });
}

TEST_CASE("Autotune.Tuner.wall_time_budget_includes_reference_compiles_and_confirmation") {
  for_each_device([](Device& device) {
    // The triad compiles fast, and its 40 configurations take longer to
    // measure than the budget lasts. The budget is set from what this build
    // costs here: the first step (the host reference and the default,
    // compiled cold), which sanitizers make many times slower on the host,
    // and a later step (another configuration), whose cost is mostly the
    // device's. It covers the first step and about five later ones, so the
    // search, which stops at 85 % of it, never reaches the end of the space.
    autotune::TuningTarget triad = builtin("alloy.triad");
    // A poor default work-group size, so that the search's pick is not the
    // default: the pick and the default are then both confirmed, and at
    // least one round must fit the budget. (With the default as the pick and
    // nothing near it, there is nothing to confirm and no round is taken.)
    triad.kernel.parameters[0].default_value = 8;  // WGS
    // 2^24 elements: each configuration's runs take long enough that the
    // whole space cannot be measured within the budget even when PoCL's
    // compile cache is warm and compiles cost nothing (2^22 could).
    const Extent size(std::size_t{1} << 24);
    const auto seconds_since = [](std::chrono::steady_clock::time_point start) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const auto calibration = std::chrono::steady_clock::now();
    autotune::Evaluator calibrating(runtime(), device, triad, size);
    calibrating.measure(triad.kernel.default_configuration());
    const double first_step = seconds_since(calibration);
    Configuration other = triad.kernel.default_configuration();
    other[0] = triad.kernel.parameters[0].values.back();  // the largest work-group
    const auto later = std::chrono::steady_clock::now();
    calibrating.measure(other);
    const double later_step = seconds_since(later);
    const double budget = std::max(3.0, first_step / 0.85 + 5 * later_step);
    autotune::ResultsLog log({});
    autotune::TuneOptions options;
    options.strategy = "random";
    options.budget.wall_time = std::chrono::duration<double>(budget);
    const auto start = std::chrono::steady_clock::now();
    const autotune::TuningResult result =
        autotune::tune(runtime(), device, triad, size, options, log);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(result.evaluations << " evaluations and " << result.confirmation_rounds
                               << " confirmation rounds in " << elapsed << " s of a " << budget
                               << " s budget on " << device.label() << "; " << result.overrun);
    CHECK(result.stopped_by == "wall time");
    CHECK(result.confirmation_rounds >= 1);
    CHECK(elapsed <= 1.1 * budget);
    CHECK(result.wall_seconds <= elapsed);
    CHECK(result.overrun.empty());
  });
}

TEST_CASE("Autotune.Tuner.a_noisy_device_gets_interleaved_rounds_and_a_provisional_entry") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget target = noisy_target(device);
    TemporaryFolder folder;
    autotune::ResultsLog log(folder.path / "log.jsonl");
    autotune::TuneOptions options;
    options.strategy = "exhaustive";
    const autotune::TuningResult result = autotune::tune(runtime(), device, target, Extent(16), options, log);
    INFO(result.confirmation_rounds << " rounds, noise " << result.noise.value_or(-1));
    REQUIRE(result.best);
    // The two took turns, round after round, to the last round.
    CHECK(result.confirmation_rounds == autotune::ConfirmOptions{}.max_rounds);
    // Their times spread by a factor of up to 4.5: the rounds cannot tell
    // them apart, and the entry says so, with the other as runner-up.
    CHECK(result.provisional);
    REQUIRE(result.runners_up.size() == 1);
    CHECK(result.runners_up[0].first != *result.best);
    const std::filesystem::path file =
        autotune::record_in_profile(folder.path, device.info(), target, result, options);
    const ProfileStore store(file);
    const TunedChoice choice = store.lookup(device.info(), target.kernel, Extent(16));
    CHECK(choice.match == ProfileMatch::device);
    CHECK(choice.provisional);
  });
}

}  // namespace alloy::test
