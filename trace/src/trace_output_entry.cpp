// What the runtime calls, through dlopen, to write a traced executor's file
// and report as it goes (runtime/src/tracing/trace_output.cpp).
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include "alloy/trace.hpp"
#include "alloy/trace_file.hpp"
#include "alloy/trace_timeline.hpp"
#include "alloy/utilization_report.hpp"

/// Writes `trace` to `file` (none if empty) with its SVG timeline beside
/// it, and the utilization report to stderr if `report`; what failed goes
/// to `error`, since no exception crosses a dlsym'd call.
extern "C" __attribute__((visibility("default"))) void alloy_trace_write_output(const alloy::Trace& trace,
                                                                                const char* file, bool report,
                                                                                std::string* error) {
  try {
    const alloy::UtilizationReport analyzed = alloy::analyze(trace);
    if (*file != '\0') {
      alloy::write_chrome_trace(trace, file);
      alloy::write_timeline_svg(trace, analyzed, std::filesystem::path(file).concat(".svg"));
    }
    if (report) std::cerr << analyzed.to_text() << std::flush;
  } catch (const std::exception& failure) {
    *error = failure.what();
  }
}
