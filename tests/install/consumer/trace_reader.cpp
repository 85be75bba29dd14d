// Reads the trace file consumer_traced wrote with alloy::trace, checks that
// its kernel is there, and prints the utilization report.
#include <cstdio>
#include <iostream>

#include <alloy/trace_file.hpp>
#include <alloy/utilization_report.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer_trace_reader TRACE.json\n");
    return 2;
  }
  const alloy::Trace trace = alloy::read_chrome_trace(argv[1]);
  bool found = false;
  for (const alloy::TraceSlice& slice : trace.slices) found = found || slice.kernel == "fill";
  if (!found) {
    std::fprintf(stderr, "%s has no slice of the kernel 'fill'\n", argv[1]);
    return 1;
  }
  std::cout << alloy::analyze(trace).to_text();
  return 0;
}
