// Cutting a launch into slices of about the slice time.
#include "kernel_slicing.hpp"

#include <algorithm>
#include <cmath>

namespace alloy::detail {

LaunchRange KernelSlicing::slice(const LaunchRange& range, std::size_t index) const {
  // Cut points rounded down spread the remainder over the slices.
  const std::size_t groups = range.groups(dimension);
  const std::size_t first = groups * index / count;
  const std::size_t end = groups * (index + 1) / count;
  return range.slice(dimension, first, end - first);
}

KernelSlicing slicing_for(const LaunchRange& range, std::optional<double> predicted_seconds,
                          std::chrono::microseconds slice_time, std::size_t fewest_groups) {
  KernelSlicing slicing;
  const double slice_seconds = std::chrono::duration<double>(slice_time).count();
  if (!range.local || !predicted_seconds || !(*predicted_seconds >= 2 * slice_seconds)) return slicing;
  std::size_t most_groups = 0;
  for (unsigned d = 0; d < range.global.dimensions; ++d) {
    if (range.groups(d) > most_groups) {
      most_groups = range.groups(d);
      slicing.dimension = d;
    }
  }
  const double wanted = std::ceil(*predicted_seconds / slice_seconds);
  const std::size_t most_slices = most_groups / std::max<std::size_t>(1, fewest_groups);
  slicing.count = static_cast<std::size_t>(std::min(wanted, static_cast<double>(most_slices)));
  if (slicing.count < 2) slicing.count = 1;
  return slicing;
}

}  // namespace alloy::detail
