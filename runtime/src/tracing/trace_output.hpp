// The trace file and report an executor writes as it goes, by alloy's trace
// library, loaded when first needed (internal to the runtime).
#pragma once

#include <filesystem>

#include "alloy/trace.hpp"

namespace alloy::detail {

/// Writes `trace` to `file` as Chrome trace JSON with its SVG timeline
/// beside it (unless `file` is empty), and prints the utilization report to
/// stderr if `report`. The runtime does not link the analysis that needs
/// (most programs never trace): it opens liballoy_trace, beside the runtime
/// library or where the loader finds it. Error if the library is missing or
/// the files cannot be written.
void write_trace_output(const Trace& trace, const std::filesystem::path& file, bool report);

}  // namespace alloy::detail
