// Which points of a space a strategy has proposed or seen, and uniform draws
// from the rest, in O(1) amortized per draw however large the space.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "rng.hpp"

namespace alloy::autotune::strategies {

/// Each point is free, pending (proposed, no result yet) or observed. Taken
/// points (pending or observed) are never handed out again.
class PointPool {
 public:
  explicit PointPool(std::size_t size) : state_(size, free_state) {}

  std::size_t size() const { return state_.size(); }
  std::size_t taken_count() const { return taken_; }
  bool exhausted() const { return taken_ == state_.size(); }
  bool available(std::size_t point) const { return state_[point] == free_state; }
  bool observed(std::size_t point) const { return state_[point] == observed_state; }

  /// Marks a free point pending.
  void propose(std::size_t point);
  /// Marks a point observed, whether it was pending or free (a result the
  /// strategy did not ask for). False when it was observed already. Throws
  /// InvalidArgument for a point outside the space.
  bool observe(std::size_t point);

  /// A uniformly drawn free point, still free: the caller proposes it.
  std::optional<std::size_t> random(Rng& rng);
  /// Up to `count` distinct free points, drawn uniformly; fewer only when
  /// fewer are free. They stay free.
  std::vector<std::size_t> sample(std::size_t count, Rng& rng);

 private:
  static constexpr std::uint8_t free_state = 0;
  static constexpr std::uint8_t pending_state = 1;
  static constexpr std::uint8_t observed_state = 2;

  // A Fisher-Yates shuffle of all points, built lazily: positions below
  // dropped_ hold taken points, and only the positions that were swapped
  // have entries, so no O(size) permutation is ever built.
  std::size_t at(std::size_t position) const;
  void swap(std::size_t a, std::size_t b);
  void drop(std::size_t position);

  std::vector<std::uint8_t> state_;
  std::size_t taken_ = 0;
  std::unordered_map<std::size_t, std::size_t> moved_;
  std::size_t dropped_ = 0;
};

}  // namespace alloy::autotune::strategies
