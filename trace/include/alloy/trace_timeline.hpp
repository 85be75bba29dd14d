// A trace drawn as an SVG timeline, readable in any browser: a row per lane,
// each device's idle gaps coloured by cause, the diagnoses beneath.
#pragma once

#include <filesystem>
#include <string>

#include "alloy/trace.hpp"
#include "alloy/utilization_report.hpp"

namespace alloy {

std::string timeline_svg(const Trace& trace, const UtilizationReport& report);
/// Error naming the file when it cannot be written.
void write_timeline_svg(const Trace& trace, const UtilizationReport& report, const std::filesystem::path& file);

}  // namespace alloy
