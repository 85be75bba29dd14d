// A pipeline run's report from its commands' device times (internal to the runtime).
#pragma once

#include <chrono>
#include <vector>

#include "alloy/pipeline.hpp"
#include "pipeline_state.hpp"

namespace alloy::detail {

/// What no chunking or route beats on `device`: each lane's work over every
/// element it streamed, at the best nanoseconds per element any chunk
/// reached on that lane (copies sharing one engine add up), after a chunk
/// of `fill_elements` passed the lanes before it and before it passes those
/// after it; the slowest lane's. `fill_elements` is fixed by the arrays, not
/// by the run's chunks, so one long chunk does not excuse itself.
std::chrono::nanoseconds chunk_free_bound(const StreamedChunks& measured, const std::vector<ChunkSpan>& spans,
                                          std::size_t device, unsigned copy_engines, std::size_t fill_elements);

/// Lane totals per device of `devices` (indices into `all`), each device's
/// ideal time, the bound no chunking or route beats (from the best rate
/// each lane reached on any chunk of `spans`, filled and drained by a chunk
/// of `fill_elements`), and the run's efficiency against both.
PipelineReport summarize(const StreamedChunks& measured, const std::vector<ChunkSpan>& spans,
                         std::chrono::nanoseconds wall, const std::vector<Device*>& all,
                         const std::vector<std::size_t>& devices, std::size_t fill_elements);

}  // namespace alloy::detail
