// Random numbers for the strategies that come out the same on every standard
// library: std::uniform_*_distribution is implementation-defined, so a seed
// would replay differently with libstdc++ and libc++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

namespace alloy::autotune::strategies {

using Rng = std::mt19937_64;

/// Uniform in [0, n); n > 0. Rejects the few low values that would bias the
/// modulo.
inline std::size_t uniform_below(Rng& rng, std::size_t n) {
  const std::uint64_t bound = n;
  const std::uint64_t threshold = (0 - bound) % bound;
  std::uint64_t x = rng();
  while (x < threshold) x = rng();
  return static_cast<std::size_t>(x % bound);
}

/// Uniform in [0, 1).
inline double uniform_unit(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace alloy::autotune::strategies
