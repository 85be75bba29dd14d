// A trace's file, the Chrome trace event format that Perfetto and
// chrome://tracing open, and several processes' traces merged into one
// (alloy::trace; docs/tracing.md).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "alloy/trace.hpp"

namespace alloy {

/// Several processes' traces as one: each trace's devices and host workers
/// named after its `labels` entry ("mpi.rank1: opencl:0 ...", "mpi.rank1 host
/// worker 0"), its ids and tasks kept apart, and its times moved onto the
/// earliest trace's origin (as they are when an origin is unknown).
/// InvalidArgument when `labels` does not name each trace.
Trace merge_traces(const std::vector<Trace>& traces, const std::vector<std::string>& labels);

/// A trace as Chrome trace event JSON, for Perfetto or chrome://tracing: one
/// process per device (and one for the host), one thread per lane, a flow
/// arrow per dependency, alloy's fields as each event's arguments.
std::string to_chrome_trace(const Trace& trace);
void write_chrome_trace(const Trace& trace, const std::filesystem::path& file);
/// Reads what to_chrome_trace wrote; InvalidArgument naming `source` and what
/// is wrong for anything else (not JSON, truncated, fields missing or of the
/// wrong type, slices on lanes or devices it does not declare).
Trace parse_chrome_trace(std::string_view text, const std::string& source);
Trace read_chrome_trace(const std::filesystem::path& file);

}  // namespace alloy
