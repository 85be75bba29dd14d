// Tracks a search's evaluations, best time and elapsed time against its Budget.
#include <algorithm>
#include <cmath>

#include "alloy/autotune/strategy.hpp"

namespace alloy::autotune {

BudgetTracker::BudgetTracker(Budget budget, std::size_t space_size)
    : budget_(budget), space_size_(space_size), start_(std::chrono::steady_clock::now()) {}

void BudgetTracker::record(std::optional<double> seconds) {
  ++evaluations_;
  // A NaN time (a broken measurement) is treated as a failure: as a best it
  // would compare false with everything and freeze the best forever.
  if (seconds && !std::isnan(*seconds) && (!best_ || *seconds < *best_)) {
    best_ = seconds;
    since_improvement_ = 0;
  } else {
    ++since_improvement_;
  }
}

double BudgetTracker::space_limit() const {
  // 0.1 * 3000 is 300.00000000000006 in doubles: shave the rounding error
  // off before ceil() so that a tenth of 3000 points is 300, not 301.
  const double exact = *budget_.space_fraction * static_cast<double>(space_size_);
  return std::ceil(exact - std::abs(exact) * 1e-12);
}

double BudgetTracker::fraction_spent() const {
  const double done = static_cast<double>(evaluations_);
  double fraction = space_size_ > 0 ? done / static_cast<double>(space_size_) : 1.0;
  if (budget_.evaluations && *budget_.evaluations > 0) {
    fraction = std::max(fraction, done / static_cast<double>(*budget_.evaluations));
  }
  if (budget_.space_fraction && space_limit() > 0) fraction = std::max(fraction, done / space_limit());
  if (budget_.wall_time && budget_.wall_time->count() > 0) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    fraction = std::max(fraction, elapsed / *budget_.wall_time);
  }
  return std::min(fraction, 1.0);
}

std::optional<std::string> BudgetTracker::exhausted() const {
  if (budget_.evaluations && evaluations_ >= *budget_.evaluations) return "evaluations";
  if (budget_.space_fraction && static_cast<double>(evaluations_) >= space_limit()) {
    return "space fraction";
  }
  if (budget_.stall && since_improvement_ >= *budget_.stall) return "no improvement";
  if (budget_.wall_time && std::chrono::steady_clock::now() - start_ >= *budget_.wall_time) {
    return "wall time";
  }
  return std::nullopt;
}

}  // namespace alloy::autotune
