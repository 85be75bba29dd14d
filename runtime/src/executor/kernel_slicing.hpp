// Cutting a long background launch into slices that each run about the
// slice time, so that critical work can start between them (docs/sharing.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "alloy/launch_range.hpp"

namespace alloy::detail {

/// How a launch runs: whole (count 1), or as `count` slices of about equal
/// numbers of work-groups along `dimension`.
struct KernelSlicing {
  unsigned dimension = 0;
  std::size_t count = 1;

  bool sliced() const { return count > 1; }
  /// Slice `index` of `range`; the slices together cover it once.
  LaunchRange slice(const LaunchRange& range, std::size_t index) const;
};

/// Slices of about `slice_time` for a launch of `range` predicted to take
/// `predicted_seconds`, along the dimension with the most work-groups, each
/// of at least `fewest_groups` (the device's compute units: fewer would leave
/// some idle while the slice runs). Whole when it is predicted to take under
/// two slice times (a cut would only add launches), has no local size, or
/// has too few work-groups for two slices.
KernelSlicing slicing_for(const LaunchRange& range, std::optional<double> predicted_seconds,
                          std::chrono::microseconds slice_time, std::size_t fewest_groups);

}  // namespace alloy::detail
