// A pipeline run's report from its commands' device times (internal to the runtime).
#pragma once

#include <chrono>
#include <vector>

#include "alloy/pipeline.hpp"

namespace alloy::detail {

/// Lane totals per device of `devices` (indices into `all`), each device's
/// ideal time, and the run's efficiency against `wall`.
PipelineReport summarize(const std::vector<CommandTime>& commands, std::chrono::nanoseconds wall,
                         const std::vector<Device*>& all, const std::vector<std::size_t>& devices);

}  // namespace alloy::detail
