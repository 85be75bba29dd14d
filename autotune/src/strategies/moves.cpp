// Level-space moves and the nearest-free-point repair.
#include "moves.hpp"

#include <algorithm>

namespace alloy::autotune::strategies {

std::vector<std::size_t> movable_parameters(const SearchSpace& space) {
  std::vector<std::size_t> movable;
  for (std::size_t p = 0; p < space.parameter_count(); ++p) {
    if (space.level_count(p) > 1) movable.push_back(p);
  }
  return movable;
}

void change_level(const SearchSpace& space, std::vector<std::size_t>& levels, std::size_t parameter,
                  double step_probability, Rng& rng) {
  const std::size_t count = space.level_count(parameter);
  std::size_t& level = levels[parameter];
  if (uniform_unit(rng) < step_probability) {
    const bool up = level == 0 || (level + 1 < count && (rng() & 1) != 0);
    level = up ? level + 1 : level - 1;
  } else {
    const std::size_t other = uniform_below(rng, count - 1);
    level = other >= level ? other + 1 : other;
  }
}

std::vector<std::size_t> pick_parameters(std::span<const std::size_t> movable, std::size_t count,
                                         Rng& rng) {
  std::vector<std::size_t> pool(movable.begin(), movable.end());
  count = std::min(count, pool.size());
  for (std::size_t i = 0; i < count; ++i) {
    std::swap(pool[i], pool[i + uniform_below(rng, pool.size() - i)]);
  }
  pool.resize(count);
  return pool;
}

std::optional<std::size_t> free_point(const SearchSpace& space, const PointPool& pool,
                                      std::span<const std::size_t> levels) {
  const std::optional<std::size_t> point = space.find(levels);
  if (point && pool.available(*point)) return point;
  return std::nullopt;
}

std::optional<std::size_t> nearest_free_point(const SearchSpace& space, const PointPool& pool,
                                              std::vector<std::size_t> levels, Rng& rng) {
  if (const auto point = free_point(space, pool, levels)) return point;
  const std::vector<std::size_t> movable = movable_parameters(space);
  if (movable.empty()) return std::nullopt;
  // A random rotation of the parameter order, so no parameter is always
  // the one repaired first.
  std::vector<std::size_t> order(movable.size());
  const std::size_t first = uniform_below(rng, movable.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = movable[(first + i) % movable.size()];
  std::size_t widest = 0;
  for (std::size_t p : movable) widest = std::max(widest, space.level_count(p));

  for (std::size_t distance = 1; distance < widest; ++distance) {
    for (std::size_t p : order) {
      const std::size_t original = levels[p];
      for (const bool up : {false, true}) {
        if (!up && original < distance) continue;
        levels[p] = up ? original + distance : original - distance;
        if (levels[p] >= space.level_count(p)) continue;
        const auto point = free_point(space, pool, levels);
        levels[p] = original;
        if (point) return point;
      }
      levels[p] = original;
    }
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (std::size_t j = i + 1; j < order.size(); ++j) {
      const std::size_t a = order[i];
      const std::size_t b = order[j];
      const std::size_t original_a = levels[a];
      const std::size_t original_b = levels[b];
      for (int step_a : {-1, 1}) {
        for (int step_b : {-1, 1}) {
          if ((step_a < 0 && original_a == 0) || (step_b < 0 && original_b == 0)) continue;
          levels[a] = original_a + static_cast<std::size_t>(step_a);
          levels[b] = original_b + static_cast<std::size_t>(step_b);
          if (levels[a] >= space.level_count(a) || levels[b] >= space.level_count(b)) continue;
          const auto point = free_point(space, pool, levels);
          if (point) return point;
        }
      }
      levels[a] = original_a;
      levels[b] = original_b;
    }
  }
  return std::nullopt;
}

}  // namespace alloy::autotune::strategies
