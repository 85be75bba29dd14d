// The tuner's timing summaries are the runtime's (alloy/statistics.hpp),
// which online tuning shares.
#pragma once

#include "alloy/statistics.hpp"

namespace alloy::autotune {

using alloy::relative_spread;
using alloy::summarize;
using alloy::TimeSummary;

}  // namespace alloy::autotune
