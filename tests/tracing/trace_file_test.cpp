// Chrome trace files: what is written reads back the same, has the structure
// trace viewers need, and a damaged file is refused with a clear error.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "alloy/error.hpp"
#include "alloy/trace_file.hpp"
#include "alloy/utilization_report.hpp"
#include "support/test_devices.hpp"
#include "synthetic_trace.hpp"

namespace alloy::test {
namespace {

Trace sample_trace() {
  SyntheticTrace synthetic(2);
  synthetic.add(1, TraceKind::copy_in, 0, 0, 20).bytes = 4096;
  TraceSlice& kernel = synthetic.kernel(2, 0, 20, 60, {1});
  kernel.configuration = "TS=16 WPT=4";
  kernel.local_size = "16";
  kernel.work_groups = 64;
  kernel.flops = 1.5e6;
  kernel.predicted_ns = 38000;
  synthetic.add(3, TraceKind::host, std::nullopt, 60, 70, {2});
  synthetic.kernel(4, 1, 70, 75, {3}).policy = "pinned";
  TraceSlice& home = synthetic.add(5, TraceKind::copy_out, 0, 75, 80);
  home.task.reset();  // the executor's own write-back
  // A device shared with other jobs: a task held back (still held as the
  // trace ends), one handed in behind their commands, and a memory share.
  synthetic.held_back(7, 1, 80, 90, 2, 300);
  synthetic.kernel(6, 1, 90, 95).others_in_flight = 3;
  synthetic.device(1).memory_share = 1 << 20;
  synthetic.device(1).memory_peak = 3 << 18;
  return synthetic.trace();
}

void check_refused(const std::string& text, const std::string& says) {
  CAPTURE(text.substr(0, 200));
  try {
    parse_chrome_trace(text, "t.json");
    FAIL("accepted");
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    CHECK(message.find("trace t.json: ") != std::string::npos);
    CHECK_MESSAGE(message.find(says) != std::string::npos, message);
  }
}

}  // namespace

TEST_CASE("Trace.File.reads_back_what_it_wrote") {
  const Trace trace = sample_trace();
  CHECK(parse_chrome_trace(to_chrome_trace(trace), "t.json") == trace);
}

TEST_CASE("Trace.Merge.ranks_share_one_time_line_and_keep_their_devices_and_tasks_apart") {
  Trace first = sample_trace();
  first.origin_unix_ns = 5'000'000'000;
  Trace second = sample_trace();
  second.origin_unix_ns = first.origin_unix_ns + 30'000;  // began 30 us later
  const Trace merged = merge_traces({first, second}, {"run.rank0", "run.rank1"});
  CHECK(merged.origin_unix_ns == first.origin_unix_ns);
  REQUIRE(merged.devices.size() == 4);
  CHECK(merged.devices[0].label == "run.rank0: test:0");
  CHECK(merged.devices[3].label == "run.rank1: test:1");
  REQUIRE(merged.slices.size() == 2 * first.slices.size());
  std::set<std::uint64_t> ids;
  std::set<std::uint64_t> tasks;
  for (const TraceSlice& slice : merged.slices) {
    CHECK(ids.insert(slice.id).second);
    if (slice.task) CHECK(tasks.insert(*slice.task).second);  // each task has one slice here
    if (!slice.device) CHECK(slice.lane.rfind("run.rank", 0) == 0);
  }
  // The second rank's first copy started 30 us into the first rank's time line,
  // on its own devices, and still follows its own tasks.
  const auto second_copy = std::find_if(merged.slices.begin(), merged.slices.end(), [](const TraceSlice& slice) {
    return slice.device && *slice.device == 2 && slice.kind == TraceKind::copy_in;
  });
  REQUIRE(second_copy != merged.slices.end());
  CHECK(second_copy->start_ns == 30'000);
  CHECK(analyze(merged).devices.size() == 4);
  CHECK_THROWS_AS(merge_traces({first, second}, {"only one"}), InvalidArgument);
}

TEST_CASE("Trace.File.keeps_its_origin_on_the_system_clock") {
  Trace trace = sample_trace();
  trace.origin_unix_ns = 1'796'000'000'123'456'789;
  CHECK(parse_chrome_trace(to_chrome_trace(trace), "t.json").origin_unix_ns == trace.origin_unix_ns);
}

TEST_CASE("Trace.File.has_processes_lanes_and_flows") {
  const Trace trace = sample_trace();
  const nlohmann::json root = nlohmann::json::parse(to_chrome_trace(trace));
  std::set<int> processes;
  std::set<std::pair<int, int>> threads;
  std::map<std::uint64_t, int> flow_ends;
  std::set<std::pair<int, int>> slice_threads;
  std::size_t slices = 0;
  for (const nlohmann::json& event : root["traceEvents"]) {
    const std::string phase = event["ph"];
    if (phase == "M" && event["name"] == "process_name") processes.insert(event["pid"].get<int>());
    if (phase == "M" && event["name"] == "thread_name") threads.insert({event["pid"].get<int>(), event["tid"].get<int>()});
    if (phase == "X") {
      ++slices;
      slice_threads.insert({event["pid"].get<int>(), event["tid"].get<int>()});
    }
    if (phase == "s") ++flow_ends[event["id"].get<std::uint64_t>()];
    if (phase == "f") {
      CHECK(event["bp"] == "e");
      flow_ends[event["id"].get<std::uint64_t>()] += 10;
    }
  }
  CHECK(processes == std::set<int>{0, 1, 2});
  // Three lanes per device, device 1's "held back" lane, one host worker.
  CHECK(threads.size() == 2 * 3 + 1 + 1);
  CHECK(slices == trace.slices.size());
  for (const auto& thread : slice_threads) CHECK(threads.contains(thread));
  // One arrow per dependency on a traced task: 1->2, 2->3, 3->4.
  CHECK(flow_ends.size() == 3);
  for (const auto& [id, ends] : flow_ends) CHECK(ends == 11);  // one start and one finish
}

TEST_CASE("Trace.File.damaged_files_are_refused") {
  const std::string good = to_chrome_trace(sample_trace());
  check_refused("", "not valid JSON");
  check_refused(good.substr(0, good.size() / 2), "not valid JSON");
  check_refused("[1, 2]", "not a JSON object");
  check_refused(R"({"traceEvents": []})", "no \"alloy\" section");

  nlohmann::json root = nlohmann::json::parse(good);
  auto refused_after = [&](auto&& change, const std::string& says) {
    nlohmann::json changed = root;
    change(changed);
    check_refused(changed.dump(), says);
  };
  refused_after([](nlohmann::json& j) { j["alloy"]["version"] = 99; }, "format version 99");
  refused_after([](nlohmann::json& j) { j["alloy"]["devices"][0].erase("lanes"); }, "device 0 has no \"lanes\"");
  refused_after([](nlohmann::json& j) { j.erase("traceEvents"); }, "has no \"traceEvents\"");
  auto first_slice = [](nlohmann::json& j) -> nlohmann::json& {
    for (nlohmann::json& event : j["traceEvents"]) {
      if (event["ph"] == "X") return event;
    }
    throw std::logic_error("no slice");
  };
  refused_after([&](nlohmann::json& j) { first_slice(j)["args"]["lane"] = "compute 9"; },
                "lane \"compute 9\", which test:0 does not declare");
  refused_after([&](nlohmann::json& j) { first_slice(j)["pid"] = 7; }, "process 7, which is no declared device");
  refused_after([&](nlohmann::json& j) { first_slice(j)["ts"] = -5.0; }, "a time out of range");
  refused_after([&](nlohmann::json& j) { first_slice(j)["dur"] = "long"; }, "\"dur\" is string");
  refused_after([&](nlohmann::json& j) { first_slice(j)["args"]["kind"] = "nap"; }, "kind \"nap\"");
  refused_after([&](nlohmann::json& j) { first_slice(j)["args"].erase("alloy_id"); }, "has no \"alloy_id\"");
  refused_after(
      [&](nlohmann::json& j) {
        nlohmann::json copy = first_slice(j);
        j["traceEvents"].push_back(copy);
      },
      "two events have alloy_id");
}

TEST_CASE("Trace.File.a_missing_file_names_its_path") {
  CHECK_THROWS_WITH_AS(read_chrome_trace("/nonexistent/trace.json"),
                       doctest::Contains("/nonexistent/trace.json cannot be opened"), InvalidArgument);
}

}  // namespace alloy::test
