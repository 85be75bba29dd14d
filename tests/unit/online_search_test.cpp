// Online search: hill-climbing on synthetic launch times with seeded noise,
// against a known best; its budget of extra device time; candidates that
// fail verification never used.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "alloy/error.hpp"
#include "tuning/online_search.hpp"

namespace alloy::test {
namespace {

using detail::OnlineSearch;
using detail::OnlineSearchOptions;

// A kernel of two tunables: the work-group size WG and the work per item WPI.
TunableKernel two_parameter_kernel() {
  TunableKernel kernel;
  kernel.name = "test.online";
  kernel.source = {"online.cl", "KERNEL void online() {}", ""};
  kernel.kernel_name = "online";
  kernel.parameters = {{"WG", {1, 2, 4, 8, 16, 32, 64}, 1, {}}, {"WPI", {1, 2, 4, 8, 16}, 1, {}}};
  kernel.launch = {{0, {}, {1, {"WPI"}, {}}, {1, {"WG"}, {}}}};
  return kernel;
}

DeviceLimits limits() { return {1024, {1024, 1024, 64}, 65536}; }

// Device time of a configuration: a bowl in log2 of both parameters, least
// at WG=16, WPI=4 (100 us).
double bowl(const Configuration& configuration) {
  const double wg = std::log2(static_cast<double>(configuration[0])) - 4;
  const double wpi = std::log2(static_cast<double>(configuration[1])) - 2;
  return 100e-6 * (1 + 0.3 * wg * wg + 0.2 * wpi * wpi);
}

struct Run {
  std::size_t launches = 0;
  std::size_t verifications = 0;
  std::size_t candidate_launches = 0;
  std::map<Configuration, std::size_t> picked;  // verification or real candidate launches
  double largest_overshoot = 0;                 // of extra time over the budget, at any step
  std::optional<std::size_t> converged_at;      // the launch after which it had converged
  double extra_share_at_convergence = 0;        // extra ÷ kernel device time then
};

// Drives `search` as an executor would, for `launches` launches with
// multiplicative noise of `noise` (log-normal). `wrong`: configurations
// whose results do not match the best's.
Run drive(OnlineSearch& search, const std::function<double(const Configuration&)>& time, std::size_t launches,
          double noise, std::uint32_t seed, const std::set<Configuration>& wrong = {}) {
  std::mt19937 random(seed);
  std::lognormal_distribution<double> jitter(0.0, noise);
  const OnlineSearchOptions options;
  Run run;
  for (; run.launches < launches; ++run.launches) {
    const OnlineSearch::Pick pick = search.next();
    if (pick.role == OnlineSearch::Role::verify) {
      ++run.verifications;
      ++run.picked[pick.configuration];
      search.timed(search.best(), time(search.best()) * jitter(random), false);  // the real launch
      if (wrong.contains(pick.configuration)) search.rejected(pick.configuration);
      else search.verified(pick.configuration);
      search.timed(pick.configuration, time(pick.configuration) * jitter(random), true);
    } else {
      if (pick.role == OnlineSearch::Role::candidate) {
        ++run.candidate_launches;
        ++run.picked[pick.configuration];
        CHECK_FALSE(wrong.contains(pick.configuration));
      }
      search.timed(pick.configuration, time(pick.configuration) * jitter(random), false);
    }
    run.largest_overshoot =
        std::max(run.largest_overshoot, search.extra_seconds() - options.budget * search.kernel_seconds());
    if (!run.converged_at && search.converged()) {
      run.converged_at = run.launches + 1;
      run.extra_share_at_convergence = search.extra_seconds() / search.kernel_seconds();
    }
  }
  return run;
}

}  // namespace

TEST_CASE("Unit.OnlineSearch.climbs_from_the_defaults_to_the_best_within_its_budget") {
  for (const std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    CAPTURE(seed);
    OnlineSearch search(two_parameter_kernel(), Extent(1 << 16), limits(), {1, 1});
    const Run run = drive(search, bowl, 20000, 0.02, seed);
    REQUIRE(run.converged_at);
    MESSAGE("seed " << seed << ": converged after " << *run.converged_at << " launches, "
                    << run.verifications << " verification runs, " << search.tried() - 1
                    << " candidates; extra device time then " << 100 * run.extra_share_at_convergence
                    << "% of the kernel's");
    CHECK(search.best() == Configuration{16, 4});
    CHECK(*search.best_seconds() == doctest::Approx(100e-6).epsilon(0.05));
    // Within the budget at the end, and never over it by more than one
    // launch of a candidate, each faster than the defaults (660 us).
    CHECK(search.extra_seconds() <= 0.05 * search.kernel_seconds());
    CHECK(run.largest_overshoot <= 1.1 * bowl({1, 1}));
    CHECK(search.tried() < 35);  // of the 35 configurations
  }
}

TEST_CASE("Unit.OnlineSearch.starts_from_the_given_configuration_and_stays_there_when_it_is_best") {
  OnlineSearch search(two_parameter_kernel(), Extent(1 << 16), limits(), {16, 4});
  const Run run = drive(search, bowl, 2000, 0.005, 7);
  CHECK(search.converged());
  CHECK(search.best() == Configuration{16, 4});
  CHECK(search.tried() == 5);  // the start and its four neighbours
  CHECK(run.verifications == 4);
  // The best's recent times were drawn with 0.5% noise.
  CHECK(search.best_samples() == OnlineSearchOptions{}.best_window);
  CHECK(search.best_noise() > 0.001);
  CHECK(search.best_noise() < 0.01);
}

TEST_CASE("Unit.OnlineSearch.a_slow_candidate_costs_one_launch_and_the_budget_holds") {
  // WG=32 (a neighbour on the way) runs 50 times longer than the best.
  const auto slow_at_32 = [](const Configuration& c) { return c[0] == 32 ? 50 * bowl(c) : bowl(c); };
  OnlineSearch search(two_parameter_kernel(), Extent(1 << 16), limits(), {16, 4});
  const Run run = drive(search, slow_at_32, 4000, 0.02, 11);
  CHECK(search.converged());
  CHECK(search.best() == Configuration{16, 4});
  CHECK(run.picked.at(Configuration{32, 4}) == 1);  // dropped after its first, hopeless time
  CHECK(search.extra_seconds() <= 0.05 * search.kernel_seconds());
  // The one slow verification run is the most the budget was ever exceeded by.
  CHECK(run.largest_overshoot <= 50 * bowl({32, 4}) * 1.1);
}

TEST_CASE("Unit.OnlineSearch.a_candidate_that_fails_verification_is_never_used") {
  // The true best gives wrong results: the search settles next to it.
  const std::set<Configuration> wrong{{16, 4}};
  OnlineSearch search(two_parameter_kernel(), Extent(1 << 16), limits(), {1, 1});
  const Run run = drive(search, bowl, 20000, 0.02, 13, wrong);
  CHECK(search.converged());
  CHECK(search.best() != Configuration{16, 4});
  CHECK(bowl(search.best()) <= 1.2 * 100e-6);  // a neighbour of it: 1.2 or 1.3 times
  CHECK(run.picked.at(Configuration{16, 4}) == 1);  // one verification, then never again
}

TEST_CASE("Unit.OnlineSearch.a_candidate_within_the_margin_does_not_replace_the_best") {
  // Every other configuration is 1% faster than the start: within the 3%
  // margin, so the search does not wander on noise-sized gains.
  const auto flat = [](const Configuration& c) { return c == Configuration{8, 2} ? 100e-6 : 99e-6; };
  OnlineSearch search(two_parameter_kernel(), Extent(1 << 16), limits(), {8, 2});
  drive(search, flat, 3000, 0.002, 17);
  CHECK(search.converged());
  CHECK(search.best() == Configuration{8, 2});
}

TEST_CASE("Unit.OnlineSearch.candidates_come_only_after_the_best_is_timed_and_while_the_budget_allows") {
  OnlineSearch search(two_parameter_kernel(), Extent(1 << 16), limits(), {4, 2});
  // Before three times of the best: the best.
  for (int i = 0; i < 3; ++i) {
    CHECK(search.next().role == OnlineSearch::Role::best);
    search.timed({4, 2}, 100e-6, false);
  }
  // 300 us of kernel time funds no verification run of 100 us at 5%.
  CHECK(search.next().role == OnlineSearch::Role::best);
  for (int i = 0; i < 17; ++i) search.timed({4, 2}, 100e-6, false);
  // 2 ms does: 100 us of extra time.
  const OnlineSearch::Pick pick = search.next();
  CHECK(pick.role == OnlineSearch::Role::verify);
  CHECK(search.upcoming().front() == pick.configuration);
  CHECK(search.upcoming().size() == 4);
  // A configuration that is not valid here cannot start a search.
  CHECK_THROWS_AS(OnlineSearch(two_parameter_kernel(), Extent(1 << 16), limits(), {3, 1}), InvalidArgument);
}

}  // namespace alloy::test
