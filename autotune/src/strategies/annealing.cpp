// Simulated annealing over level-space neighbours: a chain moves to a
// neighbour when it is faster, or slower by a margin the temperature allows,
// and restarts, reheated, once it stops improving.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "log_cost.hpp"
#include "moves.hpp"
#include "point_pool.hpp"
#include "strategies.hpp"

namespace alloy::autotune::strategies {
namespace {

// Temperatures are in units of the spread (standard deviation) of the log
// times seen so far, so the schedule fits any kernel's time scale: at the
// start a step one spread slower is accepted with probability e^(-1/0.3).
constexpr double initial_temperature = 0.3;
constexpr double cooling = 0.97;  // per step
constexpr double lowest_temperature = 1e-3;
constexpr double one_step_probability = 0.75;  // of a move's level changes being ±1
// Moves change one, two or three parameters. Two- and three-parameter moves
// reach points a chain of one-parameter moves cannot, when the points between
// are invalid (a tile and its vector width that must divide it) or slow.
constexpr double two_parameter_probability = 0.35;
constexpr double three_parameter_probability = 0.15;
constexpr int random_move_attempts = 32;

// Running mean and variance of the finite log times (Welford's method).
class Spread {
 public:
  void add(double x) {
    ++count_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(count_);
    squares_ += delta * (x - mean_);
  }
  // 1 (a factor of e) until two times are known.
  double deviation() const {
    if (count_ < 2) return 1.0;
    return std::max(std::sqrt(squares_ / static_cast<double>(count_ - 1)), 1e-9);
  }

 private:
  std::size_t count_ = 0;
  double mean_ = 0;
  double squares_ = 0;
};

// Why a pending point was proposed decides what its result does to the chain.
enum class Purpose { step, start, restart };

class Annealing final : public Strategy {
 public:
  Annealing(const SearchSpace& space, std::uint64_t seed)
      : space_(space), rng_(seed), pool_(space.size()), movable_(movable_parameters(space)) {
    // Long enough to try most of a point's one-parameter neighbours.
    for (std::size_t p : movable_) stuck_limit_ += space.level_count(p) - 1;
    stuck_limit_ = std::max<std::size_t>(stuck_limit_, 8);
  }

  std::string_view name() const override { return "annealing"; }

  std::optional<std::size_t> propose() override {
    if (pool_.exhausted()) return std::nullopt;
    std::optional<std::size_t> point;
    Purpose purpose = Purpose::step;
    if (current_ && !restart_wanted_) point = neighbour();
    if (!point) {
      // No chain yet, a stuck chain, or a neighbourhood with nothing free.
      purpose = current_ ? Purpose::restart : Purpose::start;
      point = pool_.random(rng_);
      if (!point) return std::nullopt;
      restart_wanted_ = false;
    }
    pool_.propose(*point);
    pending_.emplace(*point, purpose);
    return point;
  }

  void observe(std::size_t point, std::optional<double> seconds) override {
    if (!pool_.observe(point)) return;
    const double cost = log_cost(seconds);
    if (std::isfinite(cost)) spread_.add(cost);
    note_best(point, cost);
    const auto found = pending_.find(point);
    if (found == pending_.end()) {
      // A result from before (a resumed run): a better place to be.
      if (!current_) {
        start_chain(point, cost);
      } else if (cost < current_cost_) {
        move_to(point, cost);
        chain_best_ = std::min(chain_best_, cost);
      }
      return;
    }
    const Purpose purpose = found->second;
    pending_.erase(found);
    if (purpose == Purpose::restart || !current_) {
      start_chain(point, cost);
    } else {
      step(point, cost);
    }
  }

 private:
  std::optional<std::size_t> neighbour() {
    std::vector<std::size_t> levels;
    for (int attempt = 0; attempt < random_move_attempts; ++attempt) {
      levels = current_levels_;
      const double u = uniform_unit(rng_);
      std::size_t changes = 1;
      if (u < three_parameter_probability) {
        changes = 3;
      } else if (u < three_parameter_probability + two_parameter_probability) {
        changes = 2;
      }
      for (std::size_t p : pick_parameters(movable_, changes, rng_)) {
        change_level(space_, levels, p, one_step_probability, rng_);
      }
      if (const auto point = free_point(space_, pool_, levels)) return point;
    }
    // Random moves keep meeting taken or invalid points: look systematically.
    return nearest_free_point(space_, pool_, current_levels_, rng_);
  }

  void step(std::size_t point, double cost) {
    // cost <= current_cost_ also accepts a failed point after a failed point,
    // so a chain that starts in a failing region can walk out of it.
    const double temperature = temperature_ * spread_.deviation();
    const bool accept = cost <= current_cost_ ||
                        (std::isfinite(cost) &&
                         uniform_unit(rng_) < std::exp(-(cost - current_cost_) / temperature));
    if (accept) move_to(point, cost);
    if (cost < chain_best_) {
      chain_best_ = cost;
      since_improvement_ = 0;
    } else if (++since_improvement_ >= stuck_limit_) {
      restart();
      return;
    }
    temperature_ = std::max(temperature_ * cooling, lowest_temperature);
  }

  // Restarts alternate between reheating at the best point seen, which
  // searches the most promising region more widely, and a random free point,
  // which escapes it.
  void restart() {
    ++restarts_;
    if (restarts_ % 2 == 1 && best_ && *best_ != current_) {
      start_chain(*best_, best_cost_);
    } else {
      restart_wanted_ = true;
    }
  }

  void note_best(std::size_t point, double cost) {
    if (cost < best_cost_) {
      best_ = point;
      best_cost_ = cost;
    }
  }

  void move_to(std::size_t point, double cost) {
    current_ = point;
    current_levels_ = space_.levels(point);
    current_cost_ = cost;
  }

  void start_chain(std::size_t point, double cost) {
    move_to(point, cost);
    chain_best_ = cost;
    since_improvement_ = 0;
    temperature_ = initial_temperature;
    restart_wanted_ = false;
  }

  const SearchSpace& space_;
  Rng rng_;
  PointPool pool_;
  std::vector<std::size_t> movable_;
  std::size_t stuck_limit_ = 0;
  std::unordered_map<std::size_t, Purpose> pending_;
  Spread spread_;

  std::optional<std::size_t> current_;
  std::vector<std::size_t> current_levels_;
  double current_cost_ = std::numeric_limits<double>::infinity();
  double chain_best_ = std::numeric_limits<double>::infinity();
  std::size_t since_improvement_ = 0;
  double temperature_ = initial_temperature;
  bool restart_wanted_ = false;
  std::size_t restarts_ = 0;
  std::optional<std::size_t> best_;
  double best_cost_ = std::numeric_limits<double>::infinity();
};

}  // namespace

std::unique_ptr<Strategy> make_annealing(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<Annealing>(space, seed);
}

}  // namespace alloy::autotune::strategies
