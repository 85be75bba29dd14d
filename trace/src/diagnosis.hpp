// The causes worth fixing in a trace, from its utilization figures (internal
// to the runtime; docs/tracing.md lists them).
#pragma once

#include <vector>

#include "alloy/utilization_report.hpp"

namespace alloy::detail {

/// 1 to 5 diagnoses, the largest saving first; a single "none" when nothing
/// costs over 1% of the traced window.
std::vector<Diagnosis> diagnose(const Trace& trace, const UtilizationReport& report);

}  // namespace alloy::detail
