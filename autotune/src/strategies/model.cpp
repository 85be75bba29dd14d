// Model-based search: a random forest learns log time from levels, and each
// proposal is the free point it rates best by mean minus kappa × the trees'
// disagreement, among a random sample and the neighbours of the best points.
#include <algorithm>
#include <cmath>
#include <limits>

#include "log_cost.hpp"
#include "moves.hpp"
#include "point_pool.hpp"
#include "regression_forest.hpp"
#include "strategies.hpp"

namespace alloy::autotune::strategies {
namespace {

constexpr std::size_t random_candidates = 500;
// The best points whose neighbourhoods are searched on every proposal: the
// forest's random sample alone rarely lands next to the optimum.
constexpr std::size_t best_points_searched = 3;
constexpr std::size_t two_parameter_moves = 16;  // per best point
constexpr double kappa = 1.0;
// Refit after this fraction of new observations (and after every one early
// on), so the fitting work over n evaluations is O(n log n) fits, not n.
constexpr std::size_t refit_divisor = 16;

class Model final : public Strategy {
 public:
  Model(const SearchSpace& space, std::uint64_t seed)
      : space_(space), rng_(seed), pool_(space.size()), movable_(movable_parameters(space)) {
    for (std::size_t p = 0; p < space.parameter_count(); ++p)
      level_counts_.push_back(space.level_count(p));
    initial_ = std::max<std::size_t>(10, 2 * movable_.size());
  }

  std::string_view name() const override { return "model"; }

  std::optional<std::size_t> propose() override {
    if (pool_.exhausted()) return std::nullopt;
    std::optional<std::size_t> point;
    if (pool_.taken_count() < initial_) {
      point = pool_.random(rng_);
    } else {
      point = most_promising();
    }
    if (!point) return std::nullopt;
    pool_.propose(*point);
    return point;
  }

  void observe(std::size_t point, std::optional<double> seconds) override {
    if (!pool_.observe(point)) return;
    const std::vector<std::size_t> levels = space_.levels(point);
    for (std::size_t level : levels) levels_.push_back(static_cast<std::uint32_t>(level));
    points_.push_back(point);
    costs_.push_back(log_cost(seconds));
  }

 private:
  std::optional<std::size_t> most_promising() {
    if (points_.size() >= fitted_ + std::max<std::size_t>(1, fitted_ / refit_divisor)) refit();
    std::vector<std::size_t> candidates = pool_.sample(random_candidates, rng_);
    add_neighbourhoods(candidates);
    std::optional<std::size_t> best;
    double best_score = std::numeric_limits<double>::infinity();
    std::vector<std::size_t> levels(space_.parameter_count());
    for (std::size_t candidate : candidates) {
      for (std::size_t p = 0; p < levels.size(); ++p) levels[p] = space_.level(candidate, p);
      const RegressionForest::Prediction prediction = forest_.predict(levels);
      const double score = prediction.mean - kappa * prediction.spread;
      if (!best || score < best_score) {
        best = candidate;
        best_score = score;
      }
    }
    return best;
  }

  void refit() {
    // A failed point is taught as a little slower than the slowest success,
    // so the model steers away from failing regions without distorting the
    // scale of the rest.
    double lowest = std::numeric_limits<double>::infinity();
    double highest = -lowest;
    for (double cost : costs_) {
      if (!std::isfinite(cost)) continue;
      lowest = std::min(lowest, cost);
      highest = std::max(highest, cost);
    }
    const double failed =
        std::isfinite(lowest) ? highest + std::max(0.1, 0.25 * (highest - lowest)) : 0.0;
    std::vector<double> targets(costs_);
    for (double& target : targets) {
      if (!std::isfinite(target)) target = failed;
    }
    forest_.fit(levels_, targets, level_counts_, {}, rng_);
    fitted_ = points_.size();
  }

  // Free points next to the best ones seen: every other level of one
  // parameter, and a few random two-parameter moves.
  void add_neighbourhoods(std::vector<std::size_t>& candidates) {
    std::vector<std::size_t> order(points_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const std::size_t top = std::min(best_points_searched, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [&](std::size_t a, std::size_t b) { return costs_[a] < costs_[b]; });
    for (std::size_t rank = 0; rank < top; ++rank) {
      if (!std::isfinite(costs_[order[rank]])) break;
      const std::vector<std::size_t> centre = space_.levels(points_[order[rank]]);
      std::vector<std::size_t> levels = centre;
      for (std::size_t p : movable_) {
        for (std::size_t l = 0; l < space_.level_count(p); ++l) {
          levels[p] = l;
          if (const auto point = free_point(space_, pool_, levels)) candidates.push_back(*point);
        }
        levels[p] = centre[p];
      }
      for (std::size_t move = 0; move < two_parameter_moves; ++move) {
        levels = centre;
        for (std::size_t p : pick_parameters(movable_, 2, rng_))
          change_level(space_, levels, p, 0.75, rng_);
        if (const auto point = free_point(space_, pool_, levels)) candidates.push_back(*point);
      }
    }
  }

  const SearchSpace& space_;
  Rng rng_;
  PointPool pool_;
  std::vector<std::size_t> movable_;
  std::vector<std::size_t> level_counts_;
  std::size_t initial_ = 0;  // random points before the model is trusted

  std::vector<std::size_t> points_;    // observed, in order
  std::vector<std::uint32_t> levels_;  // their levels, one row each
  std::vector<double> costs_;          // their log times; +inf: failed
  RegressionForest forest_;
  std::size_t fitted_ = 0;  // observations the forest was fitted on
};

}  // namespace

std::unique_ptr<Strategy> make_model(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<Model>(space, seed);
}

}  // namespace alloy::autotune::strategies
