// alloy-report: how busy each device of a trace was, why it idled, and what
// would fix it; optionally the timeline as SVG.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "alloy/error.hpp"
#include "alloy/trace_file.hpp"
#include "alloy/trace_timeline.hpp"
#include "alloy/utilization_report.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Reads a trace an alloy executor wrote (ALLOY_TRACE=FILE), or several, and reports per device and lane busy "
               "time, copy/compute overlap, idle gaps by cause, top kernels, and what to fix first."};
  std::vector<std::string> trace_files;
  bool as_json = false;
  std::string svg_file;
  app.add_option("traces", trace_files,
                 "the trace: Chrome trace event JSON written by alloy; several (one per MPI rank, say) make "
                 "one report, each file's devices and host workers named after it")
      ->required();
  app.add_flag("--json", as_json, "print the report as JSON");
  app.add_option("--svg", svg_file, "also draw the timeline into this SVG file");
  app.set_version_flag("--version", "alloy-report " ALLOY_VERSION);
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<alloy::Trace> traces;
    std::vector<std::string> labels;
    for (const std::string& file : trace_files) {
      traces.push_back(alloy::read_chrome_trace(file));
      labels.push_back(std::filesystem::path(file).stem().string());
    }
    const alloy::Trace trace = traces.size() == 1 ? traces.front() : alloy::merge_traces(traces, labels);
    const alloy::UtilizationReport report = alloy::analyze(trace);
    std::cout << (as_json ? report.to_json() + "\n" : report.to_text());
    if (!svg_file.empty()) alloy::write_timeline_svg(trace, report, svg_file);
  } catch (const alloy::Error& error) {
    std::cerr << "alloy-report: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
