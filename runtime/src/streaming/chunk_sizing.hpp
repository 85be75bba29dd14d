// Choosing a pipeline's chunk size and depth from what its first chunks
// measured (internal to the runtime).
#pragma once

#include <cstddef>
#include <vector>

#include "pipeline_state.hpp"

namespace alloy::detail {

/// A lane's time for a chunk of n elements: fixed + n × per_element.
struct LaneCost {
  double fixed_s = 0.0;
  double per_element_s = 0.0;
  double at(std::size_t n) const { return fixed_s + per_element_s * static_cast<double>(n); }
};

/// One device's lanes as its calibration chunks measured them.
struct DeviceCost {
  LaneCost copy_in, compute, copy_out;
  unsigned copy_engines = 1;
  /// A chunk's time in the steady state: its slowest lane (or both copy
  /// directions together, with one copy engine).
  double stage_s(std::size_t n) const;
  /// The first chunk's copy-in and kernel and the last one's copy-out,
  /// which nothing overlaps, beyond what a stage costs.
  double fill_and_drain_s(std::size_t n) const;
};

/// Fits each ring's lanes from its chunks of two lengths (span i is ring
/// i mod devices), taking per length each lane's fastest sample.
std::vector<DeviceCost> fit_costs(const StreamedChunks& calibration, const std::vector<ChunkSpan>& spans,
                                  const std::vector<unsigned>& copy_engines);

/// The chunk length in [smallest, largest] whose predicted time for
/// `elements` over the devices (in turn) is least; ties go to the longer.
std::size_t best_chunk(const std::vector<DeviceCost>& costs, std::size_t elements, std::size_t smallest,
                       std::size_t largest);

/// Chunk lengths to calibrate with, a short and a long one, for arrays of
/// `bytes_per_element`: short enough to leave most of the data for the
/// chosen size, long enough that per-element costs show.
struct CalibrationSizes {
  std::size_t short_chunk = 0;
  std::size_t long_chunk = 0;
};
CalibrationSizes calibration_sizes(std::size_t bytes_per_element);

}  // namespace alloy::detail
