// A steady-state genetic algorithm on levels: each child comes from two
// tournament winners by uniform crossover and mutation, and replaces the
// slowest member of the population when it is faster.
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "log_cost.hpp"
#include "moves.hpp"
#include "point_pool.hpp"
#include "strategies.hpp"

namespace alloy::autotune::strategies {
namespace {

constexpr std::size_t tournament_size = 3;
constexpr double one_step_probability = 0.7;  // of a mutation being a ±1 step
constexpr int breeding_attempts = 16;

struct Member {
  std::size_t point;
  std::vector<std::size_t> levels;
  double cost;
};

class Evolution final : public Strategy {
 public:
  Evolution(const SearchSpace& space, std::uint64_t seed)
      : space_(space), rng_(seed), pool_(space.size()), movable_(movable_parameters(space)) {
    population_size_ = std::clamp<std::size_t>(2 * movable_.size() + 8, 12, 40);
  }

  std::string_view name() const override { return "evolution"; }

  std::optional<std::size_t> propose() override {
    if (pool_.exhausted()) return std::nullopt;
    std::optional<std::size_t> point;
    if (population_.empty() || population_.size() + founders_.size() < population_size_) {
      point = pool_.random(rng_);
      if (point) founders_.insert(*point);
    } else {
      point = breed();
    }
    if (!point) return std::nullopt;
    pool_.propose(*point);
    return point;
  }

  void observe(std::size_t point, std::optional<double> seconds) override {
    if (!pool_.observe(point)) return;
    founders_.erase(point);
    Member member{point, space_.levels(point), log_cost(seconds)};
    if (population_.size() < population_size_) {
      population_.push_back(std::move(member));
      return;
    }
    const auto worst =
        std::max_element(population_.begin(), population_.end(),
                         [](const Member& a, const Member& b) { return a.cost < b.cost; });
    if (member.cost < worst->cost) *worst = std::move(member);
  }

 private:
  const Member& tournament() {
    const Member* winner = &population_[uniform_below(rng_, population_.size())];
    for (std::size_t round = 1; round < tournament_size; ++round) {
      const Member& other = population_[uniform_below(rng_, population_.size())];
      if (other.cost < winner->cost) winner = &other;
    }
    return *winner;
  }

  std::optional<std::size_t> breed() {
    // About one mutation per child, so a child whose parents agree still
    // differs from them.
    const double mutation_rate =
        movable_.empty() ? 0.0 : 1.0 / static_cast<double>(movable_.size());
    std::vector<std::size_t> child;
    for (int attempt = 0; attempt < breeding_attempts; ++attempt) {
      const Member& mother = tournament();
      const Member& father = tournament();
      child = mother.levels;
      for (std::size_t p : movable_) {
        if ((rng_() & 1) != 0) child[p] = father.levels[p];
      }
      for (std::size_t p : movable_) {
        if (uniform_unit(rng_) < mutation_rate)
          change_level(space_, child, p, one_step_probability, rng_);
      }
      if (const auto point = free_point(space_, pool_, child)) return point;
    }
    // An invalid or already-seen child: the nearest free point to it, else
    // anywhere free.
    if (const auto point = nearest_free_point(space_, pool_, child, rng_)) return point;
    return pool_.random(rng_);
  }

  const SearchSpace& space_;
  Rng rng_;
  PointPool pool_;
  std::vector<std::size_t> movable_;
  std::size_t population_size_ = 0;
  std::vector<Member> population_;
  std::unordered_set<std::size_t> founders_;  // random first members not yet measured
};

}  // namespace

std::unique_ptr<Strategy> make_evolution(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<Evolution>(space, seed);
}

}  // namespace alloy::autotune::strategies
