// What the strategies compare: the log of a measured time, so that
// temperatures, model targets and spreads do not depend on the time scale.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace alloy::autotune::strategies {

/// +inf for a failed point (or a time that is not a number), so failures are
/// never best and lose every comparison.
inline double log_cost(std::optional<double> seconds) {
  if (!seconds || std::isnan(*seconds)) return std::numeric_limits<double>::infinity();
  // A zero or negative time is a broken measurement, but must not become -inf.
  return std::log(std::max(*seconds, 1e-30));
}

}  // namespace alloy::autotune::strategies
