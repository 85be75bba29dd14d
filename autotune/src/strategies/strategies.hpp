// The built-in search strategies, each made by one factory; make_strategy()
// picks among them by name. Each keeps a reference to `space`, which must
// outlive it.
#pragma once

#include <cstdint>
#include <memory>

#include "alloy/autotune/strategy.hpp"

namespace alloy::autotune::strategies {

std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_random(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_annealing(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_evolution(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_model(const SearchSpace& space, std::uint64_t seed);

}  // namespace alloy::autotune::strategies
