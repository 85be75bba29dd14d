// The confirmation step on synthetic timings: intervals that hold the
// median, noisy neighbours separated, ties broken the documented way, the
// default never kept over a candidate it was not shown to beat, and a pick
// the rounds could not tell apart marked provisional.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "alloy/autotune/confirmation.hpp"
#include "support/random_seed.hpp"

namespace alloy::autotune {
namespace {

Measurement ok_measurement(Configuration configuration, double seconds, double low, double high) {
  Measurement measurement;
  measurement.configuration = std::move(configuration);
  measurement.seconds = seconds;
  measurement.low = low;
  measurement.high = high;
  return measurement;
}

// Candidate i's true median is medians[i]; each timing is that times a
// log-normal factor, and now and then an outlier several times slower (a
// shared device). The default is candidate 0.
struct NoisyDevice {
  std::vector<double> medians;
  double sigma = 0.05;
  double outlier_chance = 0.1;
  std::mt19937_64 random;

  std::optional<double> time(std::size_t candidate) {
    std::normal_distribution<double> noise(0.0, sigma);
    double seconds = medians[candidate] * std::exp(noise(random));
    if (std::uniform_real_distribution<double>(0, 1)(random) < outlier_chance) {
      seconds *= std::uniform_real_distribution<double>(3, 7)(random);
    }
    return seconds;
  }
};

std::vector<ConfirmationCandidate> candidates_for(std::size_t count) {
  std::vector<ConfirmationCandidate> candidates;
  for (std::size_t i = 0; i < count; ++i) {
    candidates.push_back({{std::int64_t(i)}, i == 0, i == 0 ? 0u : 1u, {}, false});
  }
  return candidates;
}

}  // namespace

TEST_CASE("Autotune.Statistics.median_interval_holds_the_median") {
  const std::uint64_t seed = test::random_seed();
  MESSAGE("seed " << seed << " (replay with ALLOY_TEST_SEED=" << seed << ")");
  std::mt19937_64 random(seed);
  // Below 6 samples no interval reaches 95 %: the range is given.
  const TimeSummary few = summarize({3.0, 1.0, 2.0});
  CHECK(few.median == 2.0);
  CHECK(few.low == 1.0);
  CHECK(few.high == 3.0);
  CHECK(summarize({}).samples == 0);
  // Skewed noise around a median of 1: the interval holds it at least 95 %
  // of the time (allowing for the trials' own sampling error).
  for (std::size_t n : {6u, 10u, 25u, 60u}) {
    std::size_t held = 0;
    const std::size_t trials = 4000;
    for (std::size_t t = 0; t < trials; ++t) {
      std::vector<double> samples;
      std::exponential_distribution<double> skewed(std::log(2.0));  // median 1
      for (std::size_t i = 0; i < n; ++i) samples.push_back(skewed(random));
      const TimeSummary summary = summarize(samples);
      if (summary.low <= 1.0 && 1.0 <= summary.high) ++held;
    }
    CAPTURE(n);
    CHECK(double(held) / double(trials) >= 0.94);
    const TimeSummary summary = summarize(std::vector<double>(n, 2.0));
    CHECK(summary.low == 2.0);
    CHECK(summary.high == 2.0);
  }
}

TEST_CASE("Autotune.Confirmation.candidates_are_the_fastest_and_those_within_drift_of_the_best_with_the_default") {
  const Configuration defaults{0};
  const std::vector<Measurement> measured = {
      ok_measurement({0}, 5.0, 4.9, 5.1),   // the default, far slower
      ok_measurement({1}, 1.0, 0.95, 1.05),  // the best
      ok_measurement({2}, 1.1, 1.04, 1.2),   // overlaps the best
      ok_measurement({3}, 1.3, 1.1, 1.5),    // does not
      ok_measurement({4}, 1.02, 0.99, 1.4),  // overlaps
  };
  std::vector<Measurement> with_failure = measured;
  with_failure.push_back(ok_measurement({5}, 0.1, 0.1, 0.1));
  with_failure.back().outcome = Outcome::wrong_result;  // never a candidate, however fast
  ConfirmOptions options;
  std::vector<ConfirmationCandidate> candidates = confirmation_candidates(with_failure, defaults, options);
  std::vector<std::int64_t> picked;
  for (const ConfirmationCandidate& c : candidates) picked.push_back(c.configuration[0]);
  CHECK(picked == std::vector<std::int64_t>{1, 4, 2, 0});
  CHECK(candidates.back().is_default);
  CHECK(candidates.back().distance_to_default == 0);
  CHECK(candidates.front().distance_to_default == 1);
  // The device drifted by 20 % during the search: configuration 3 (its
  // interval from 1.1) may be as fast as the best (to 1.05 x 1.2 = 1.26).
  picked.clear();
  for (const ConfirmationCandidate& c : confirmation_candidates(measured, defaults, options, 0.2)) {
    picked.push_back(c.configuration[0]);
  }
  CHECK(picked == std::vector<std::int64_t>{1, 4, 2, 3, 0});
  // The fastest four besides the default, whatever their intervals.
  options.min_candidates = 4;
  CHECK(confirmation_candidates(measured, defaults, options).size() == 5);
  options.max_candidates = 1;
  candidates = confirmation_candidates(measured, defaults, options);
  REQUIRE(candidates.size() == 2);
  CHECK(candidates[0].configuration == Configuration{1});
  CHECK(candidates[1].is_default);
  CHECK(confirmation_candidates({}, defaults, options).empty());
}

TEST_CASE("Autotune.Confirmation.ties_never_keep_the_default_and_go_to_the_faster_median") {
  std::vector<ConfirmationCandidate> candidates = {
      {{0, 0}, true, 0, {1.00, 1.01, 0.99}, false},
      {{1, 1}, false, 2, {0.99, 1.00, 1.02}, false},
      {{0, 1}, false, 1, {1.01, 1.00, 1.00}, false},
  };
  // All three tied, with equal medians: not the default, and of the others
  // the one nearer it.
  ConfirmationOutcome outcome = choose_confirmed(candidates);
  CHECK(outcome.chosen == 2);
  CHECK(outcome.tied == 3);
  CHECK_FALSE(outcome.provisional);  // every interval within 5 % of the pick
  // Cut short by the budget: the same pick, provisional.
  outcome = choose_confirmed(candidates, false);
  CHECK(outcome.chosen == 2);
  CHECK(outcome.provisional);
  // Within the tie margin but faster: the median decides, not the distance.
  candidates[1].samples = {0.97, 0.98, 0.99};
  outcome = choose_confirmed(candidates);
  CHECK(outcome.chosen == 1);
  CHECK(outcome.tied == 3);
  // The others shown slower: the default stays.
  candidates[1].dropped = candidates[2].dropped = true;
  outcome = choose_confirmed(candidates);
  CHECK(outcome.chosen == 0);
  CHECK(outcome.tied == 1);
  CHECK_FALSE(outcome.provisional);
}

TEST_CASE("Autotune.Confirmation.a_pick_the_rounds_cannot_tell_apart_is_provisional") {
  // Two candidates 30 % apart on a device whose timings vary by a factor of
  // e (log-normal, sigma 1): 25 rounds do not separate them.
  std::size_t provisional = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    NoisyDevice device{{1.3, 1.0}, 1.0, 0.0, std::mt19937_64(seed)};
    std::vector<ConfirmationCandidate> candidates = candidates_for(2);
    const ConfirmationOutcome outcome =
        confirm(candidates, ConfirmOptions{}, [&](std::size_t i, unsigned) { return device.time(i); },
                [] { return false; });
    if (outcome.provisional) ++provisional;
    if (!outcome.provisional) CHECK(candidates[0].dropped);  // told apart: the default was separated
  }
  CHECK(provisional >= 15);
  // A quiet device (1 % noise) separates them, and stops once it has.
  NoisyDevice quiet{{1.3, 1.0}, 0.01, 0.0, std::mt19937_64(1)};
  std::vector<ConfirmationCandidate> candidates = candidates_for(2);
  const ConfirmationOutcome outcome = confirm(
      candidates, ConfirmOptions{}, [&](std::size_t i, unsigned) { return quiet.time(i); }, [] { return false; });
  CHECK_FALSE(outcome.provisional);
  CHECK(outcome.chosen == 1);
  CHECK(outcome.rounds == ConfirmOptions{}.min_rounds);
}

TEST_CASE("Autotune.Confirmation.noisy_neighbours_are_separated") {
  const std::uint64_t seed = test::random_seed();
  MESSAGE("seed " << seed << " (replay with ALLOY_TEST_SEED=" << seed << ")");
  std::mt19937_64 seeds(seed);
  const ConfirmOptions options;
  std::size_t exact = 0;
  const std::size_t runs = 200;
  for (std::size_t run = 0; run < runs; ++run) {
    // The default, the true best, a close second (8 % slower) and a third.
    NoisyDevice device{{1.5, 1.0, 1.08, 1.2}, 0.05, 0.1, std::mt19937_64(seeds())};
    std::vector<ConfirmationCandidate> candidates = candidates_for(4);
    unsigned timings = 0;
    const ConfirmationOutcome outcome = confirm(
        candidates, options, [&](std::size_t i, unsigned) { ++timings; return device.time(i); },
        [] { return false; });
    CAPTURE(run);
    // Never worse than 1.10x the best, and most often the best itself.
    CHECK(device.medians[outcome.chosen] <= 1.10);
    CHECK(outcome.rounds <= options.max_rounds);
    CHECK(outcome.rounds >= options.min_rounds);
    CHECK(timings <= 4 * options.max_rounds);
    if (outcome.chosen == 1) ++exact;
  }
  MESSAGE(exact << " of " << runs << " picked the true best");
  CHECK(double(exact) / double(runs) >= 0.9);
}

TEST_CASE("Autotune.Confirmation.bimodal_candidate_is_judged_by_its_median") {
  // Fast (0.43 of the default) one run in four, 3-6x slower otherwise: the
  // search may have seen only the fast mode. Its median is the slower one.
  // Its interval may still reach into the fast mode after every round.
  std::vector<ConfirmationCandidate> candidates;
  ConfirmationOutcome outcome;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    std::mt19937_64 random(seed);
    candidates = candidates_for(2);
    auto time_once = [&](std::size_t i, unsigned) -> std::optional<double> {
      if (i == 0) return 1.0 * std::uniform_real_distribution<double>(0.98, 1.02)(random);
      const bool fast = std::uniform_real_distribution<double>(0, 1)(random) < 0.25;
      return fast ? 0.43 : std::uniform_real_distribution<double>(3, 6)(random);
    };
    outcome = confirm(candidates, ConfirmOptions{}, time_once, [] { return false; });
    CAPTURE(seed);
    CHECK(outcome.chosen == 0);
    CHECK(outcome.tied == 1);
  }
  // A candidate as fast as the default, not separable from it: the default is not kept.
  candidates = candidates_for(2);
  std::mt19937_64 same(11);
  outcome = confirm(candidates, ConfirmOptions{},
                    [&](std::size_t, unsigned) -> std::optional<double> {
                      return std::uniform_real_distribution<double>(0.95, 1.05)(same);
                    },
                    [] { return false; });
  CHECK(outcome.chosen == 1);
  CHECK(outcome.tied == 2);
  // Tied for sure once both intervals are within 5 % of the pick: the
  // rounds stop there.
  CHECK_FALSE(outcome.provisional);
  CHECK(outcome.rounds < ConfirmOptions{}.max_rounds);
}

TEST_CASE("Autotune.Confirmation.stops_at_the_deadline_and_drops_failures") {
  std::vector<ConfirmationCandidate> candidates = candidates_for(3);
  unsigned timings = 0;
  const ConfirmationOutcome outcome = confirm(
      candidates, ConfirmOptions{},
      [&](std::size_t i, unsigned) -> std::optional<double> {
        ++timings;
        if (i == 2) return std::nullopt;  // fails when timed again: out
        return i == 0 ? 2.0 : 1.0;
      },
      [&] { return timings >= 7; });
  CHECK(timings == 7);
  CHECK(outcome.rounds == 3);
  CHECK(candidates[2].dropped);
  CHECK(outcome.chosen == 1);
}

}  // namespace alloy::autotune
