// Point bookkeeping and the lazy shuffle behind uniform draws of free points.
#include "point_pool.hpp"

#include <string>

#include "alloy/error.hpp"

namespace alloy::autotune::strategies {

void PointPool::propose(std::size_t point) {
  if (state_[point] != free_state) return;
  state_[point] = pending_state;
  ++taken_;
}

bool PointPool::observe(std::size_t point) {
  if (point >= state_.size()) {
    throw InvalidArgument("search strategy: observed point " + std::to_string(point) +
                          " lies outside the space's " + std::to_string(state_.size()) + " points");
  }
  if (state_[point] == observed_state) return false;
  if (state_[point] == free_state) ++taken_;
  state_[point] = observed_state;
  return true;
}

std::size_t PointPool::at(std::size_t position) const {
  const auto found = moved_.find(position);
  return found == moved_.end() ? position : found->second;
}

void PointPool::swap(std::size_t a, std::size_t b) {
  if (a == b) return;
  const std::size_t point_a = at(a);
  const std::size_t point_b = at(b);
  moved_[a] = point_b;
  moved_[b] = point_a;
}

void PointPool::drop(std::size_t position) {
  // Positions below dropped_ are never read again.
  swap(position, dropped_);
  moved_.erase(dropped_);
  ++dropped_;
}

std::optional<std::size_t> PointPool::random(Rng& rng) {
  // Taken points are dropped from the shuffle only when a draw meets them, so
  // the total work over a search is O(size) however points were taken.
  while (dropped_ < state_.size()) {
    const std::size_t position = dropped_ + uniform_below(rng, state_.size() - dropped_);
    const std::size_t point = at(position);
    if (available(point)) return point;
    drop(position);
  }
  return std::nullopt;
}

std::vector<std::size_t> PointPool::sample(std::size_t count, Rng& rng) {
  // A partial shuffle into positions [dropped_, end) that leaves the drawn
  // points in the shuffle: it stays a permutation of the untaken points.
  std::size_t end = dropped_;
  while (end - dropped_ < count && end < state_.size()) {
    swap(end, end + uniform_below(rng, state_.size() - end));
    if (!available(at(end))) {
      swap(end, dropped_);  // the drawn points shift up by one
      drop(dropped_);
    }
    ++end;
  }
  std::vector<std::size_t> points;
  points.reserve(end - dropped_);
  for (std::size_t position = dropped_; position < end; ++position) points.push_back(at(position));
  return points;
}

}  // namespace alloy::autotune::strategies
