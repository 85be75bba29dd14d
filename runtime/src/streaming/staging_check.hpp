// Whether staging the caller's memory through host threads still pays once
// a run has streamed its first chunks that way (internal to the runtime).
// The route is measured on a few megabytes before the run; the host threads
// that stage are the resource a busy machine takes away, so a choice made in
// a quiet moment is checked against what the chunks themselves achieved.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "host_memory_route.hpp"
#include "pipeline_state.hpp"

namespace alloy::detail {

/// What staged chunks achieved, in seconds per byte of the caller's memory.
struct StagingObserved {
  std::size_t bytes = 0;           ///< staged in or out over the chunks
  double host_s_per_byte = 0;      ///< host threads copying (busy time, however many at once)
  double transfer_s_per_byte = 0;  ///< the slower copy direction's device transfers
  /// The slower of the two: host threads copy while the device transfers.
  double staged_s_per_byte() const;
  /// "staged 6.1 GB/s (host copies 6.1 GB/s, transfers 24.0 GB/s)"
  std::string describe() const;
};

/// From the commands of `spans` (all staged), arrays of `input_bytes` and
/// `output_bytes` per element, and the host threads' busy time over them.
StagingObserved observe_staging(const StreamedChunks& measured, const std::vector<ChunkSpan>& spans,
                                std::size_t input_bytes, std::size_t output_bytes,
                                std::chrono::nanoseconds host_busy);

/// Staging is kept while what it achieved is no slower per byte than the
/// direct transfer measured before the run.
bool staging_still_pays(const RouteTimes& before, const StagingObserved& observed);

}  // namespace alloy::detail
