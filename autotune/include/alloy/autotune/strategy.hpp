// Search strategies over a SearchSpace and the budgets that stop them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloy/autotune/search_space.hpp"

namespace alloy::autotune {

/// Picks which points of a space to measure next from what it has observed.
///
/// The tuner may ask for several proposals before it reports results (it
/// compiles ahead of measurement), so propose() must not wait for observe().
/// A strategy never proposes a point twice; points it learns of through
/// observe() without having proposed them (a resumed run's log) count as
/// evaluated too. Not thread-safe: one tuner thread drives it.
class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual std::string_view name() const = 0;
  /// The next point to evaluate; nothing once the strategy has nothing left
  /// to propose (every point seen, say).
  virtual std::optional<std::size_t> propose() = 0;
  /// The measured time of `point` in seconds, or nothing when it failed
  /// (compile error, wrong result, ...): failed points are never best. A
  /// second observation of a point is ignored; a point outside the space
  /// throws InvalidArgument.
  virtual void observe(std::size_t point, std::optional<double> seconds) = 0;
};

/// "exhaustive", "random", "annealing", "evolution", "model" (a surrogate
/// model that proposes where it predicts the fastest time).
std::vector<std::string> strategy_names();

/// Throws InvalidArgument for an unknown name. The same seed and the same
/// observations give the same proposals. The strategy keeps a reference to
/// `space`, which must outlive it.
std::unique_ptr<Strategy> make_strategy(std::string_view name, const SearchSpace& space,
                                        std::uint64_t seed);

/// Limits on a search; a search stops at the first one reached. Unset limits
/// do not apply; an empty Budget stops only when the strategy does.
struct Budget {
  std::optional<std::size_t> evaluations;
  std::optional<std::chrono::duration<double>> wall_time;
  std::optional<double> space_fraction;      ///< of the space's valid points, 0..1
  /// Evaluations without improving the best; failures count as no
  /// improvement, and before any success every evaluation does.
  std::optional<std::size_t> stall;
};

/// Tracks one search against a Budget.
class BudgetTracker {
 public:
  BudgetTracker(Budget budget, std::size_t space_size);

  /// Records one evaluation; `seconds` as in Strategy::observe.
  void record(std::optional<double> seconds);
  /// Which limit was reached ("evaluations", "wall time", "space fraction",
  /// "no improvement"), or nothing while the search may go on.
  std::optional<std::string> exhausted() const;

  /// How much of the budget is spent, 0..1, by whichever limit is nearest
  /// (the space's size always being one): for progress bars and ETAs.
  double fraction_spent() const;

  std::size_t evaluations() const { return evaluations_; }
  std::optional<double> best() const { return best_; }

 private:
  Budget budget_;
  std::size_t space_size_;
  std::chrono::steady_clock::time_point start_;
  std::size_t evaluations_ = 0;
  std::size_t since_improvement_ = 0;
  std::optional<double> best_;

  double space_limit() const;  ///< evaluations the space fraction allows
};

/// One step of an offline search: the point, its time and the best so far.
struct ReplayStep {
  std::size_t point;
  std::optional<double> seconds;
  std::optional<double> best;
};

/// Runs a strategy against known results instead of a device: `seconds_of`
/// gives each point's time (nothing: failed). For testing and comparing
/// strategies on a results log.
template <class SecondsOf>
std::vector<ReplayStep> replay(Strategy& strategy, const Budget& budget, std::size_t space_size,
                               SecondsOf&& seconds_of) {
  BudgetTracker tracker(budget, space_size);
  std::vector<ReplayStep> steps;
  while (!tracker.exhausted()) {
    const std::optional<std::size_t> point = strategy.propose();
    if (!point) break;
    const std::optional<double> seconds = seconds_of(*point);
    strategy.observe(*point, seconds);
    tracker.record(seconds);
    steps.push_back({*point, seconds, tracker.best()});
  }
  return steps;
}

}  // namespace alloy::autotune
