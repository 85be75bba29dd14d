// alloy-report: how busy each device of a trace was, why it idled, and what
// would fix it; optionally the timeline as SVG.
#include <iostream>

#include <CLI/CLI.hpp>

#include "alloy/error.hpp"
#include "alloy/trace.hpp"
#include "alloy/trace_timeline.hpp"
#include "alloy/utilization_report.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Reads a trace an alloy executor wrote (ALLOY_TRACE=FILE) and reports per device and lane busy "
               "time, copy/compute overlap, idle gaps by cause, top kernels, and what to fix first."};
  std::string trace_file;
  bool as_json = false;
  std::string svg_file;
  app.add_option("trace", trace_file, "the trace: Chrome trace event JSON written by alloy")->required();
  app.add_flag("--json", as_json, "print the report as JSON");
  app.add_option("--svg", svg_file, "also draw the timeline into this SVG file");
  app.set_version_flag("--version", "alloy-report " ALLOY_VERSION);
  CLI11_PARSE(app, argc, argv);

  try {
    const alloy::Trace trace = alloy::read_chrome_trace(trace_file);
    const alloy::UtilizationReport report = alloy::analyze(trace);
    std::cout << (as_json ? report.to_json() + "\n" : report.to_text());
    if (!svg_file.empty()) alloy::write_timeline_svg(trace, report, svg_file);
  } catch (const alloy::Error& error) {
    std::cerr << "alloy-report: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
