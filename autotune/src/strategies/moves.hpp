// Moves in level space shared by the local strategies: changing a parameter's
// level, and finding the free valid point nearest to a combination of levels.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "alloy/autotune/search_space.hpp"
#include "point_pool.hpp"
#include "rng.hpp"

namespace alloy::autotune::strategies {

/// The parameters with more than one level: the only ones a move can change.
std::vector<std::size_t> movable_parameters(const SearchSpace& space);

/// Sets `parameter`'s level to a different one: a ±1 step with probability
/// `step_probability` (turned back at the ends of the range), else a random
/// other level. The parameter must have at least two levels.
void change_level(const SearchSpace& space, std::vector<std::size_t>& levels, std::size_t parameter,
                  double step_probability, Rng& rng);

/// `count` distinct parameters drawn from `movable` (all of them when it has
/// fewer).
std::vector<std::size_t> pick_parameters(std::span<const std::size_t> movable, std::size_t count,
                                         Rng& rng);

/// The point with these levels when it is valid and free.
std::optional<std::size_t> free_point(const SearchSpace& space, const PointPool& pool,
                                      std::span<const std::size_t> levels);

/// The free valid point nearest to `levels`: those levels themselves, else one
/// parameter changed (nearest level first, parameters in random order), else
/// two parameters moved by one step each. Nothing when none of those is free;
/// costs O(sum of level counts + parameters^2) lookups, not a scan of the space.
std::optional<std::size_t> nearest_free_point(const SearchSpace& space, const PointPool& pool,
                                              std::vector<std::size_t> levels, Rng& rng);

}  // namespace alloy::autotune::strategies
