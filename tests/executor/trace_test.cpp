// A traced executor: every task once, on its device's lanes, with dependency
// arrows between existing events, on the host's clock; files at exit.
#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "alloy/trace_file.hpp"
#include "alloy/utilization_report.hpp"
#include "embedded/conformance_source.hpp"
#include "support/svg_text_bounds.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

ExecutorOptions traced() {
  ExecutorOptions options = on_selected_devices();
  options.trace = true;
  options.compute_lanes = 2;
  return options;
}

/// Per device: a chain of kernels over its own buffer, a copy and a fill,
/// then one host task reading everything.
Graph mixed_graph(std::vector<Buffer<int>>& data, std::vector<Buffer<int>>& copies, std::size_t devices) {
  Graph graph;
  for (std::size_t d = 0; d < devices; ++d) {
    TaskOptions on_device;
    on_device.device = d;
    graph.fill(copies[d].whole(), 0, on_device);
    for (int step = 0; step < 3; ++step) {
      TaskOptions options = on_device;
      options.name = "add " + std::to_string(step);
      options.flops = static_cast<double>(data[d].size());
      graph.kernel(conformance, "add_to_range", {Extent(round_up(data[d].size(), 64))},
                   {0, static_cast<int>(data[d].size()), step + 1, read_write(data[d])}, options);
    }
    graph.copy(data[d].whole(), copies[d].whole(), on_device);
  }
  std::vector<Access> all;
  for (auto& buffer : copies) all.push_back(read(buffer));
  graph.host(all, [] {});
  return graph;
}

bool own_slice(const TraceSlice& slice) { return slice.name.rfind("task ", 0) == 0; }

}  // namespace

TEST_CASE("Executor.Trace.every_task_once_on_its_lanes_with_arrows_between_events") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), traced());
  const std::size_t devices = executor.devices().size();
  std::vector<Buffer<int>> data;
  std::vector<Buffer<int>> copies;
  for (std::size_t d = 0; d < devices; ++d) {
    data.emplace_back(std::vector<int>(4096, static_cast<int>(d)));
    copies.emplace_back(4096);
  }
  Graph graph = mixed_graph(data, copies, devices);
  Run run = executor.run(graph);
  const Trace trace = executor.trace();

  REQUIRE(trace.devices.size() == devices);
  for (const TraceDevice& device : trace.devices) {
    CHECK(device.lanes == std::vector<std::string>{"compute 0", "compute 1", "copy-in", "copy-out"});
  }
  std::map<std::uint64_t, std::size_t> seen;
  std::set<std::uint64_t> ids;
  for (const TraceSlice& slice : trace.slices) {
    CAPTURE(slice.name);
    CHECK(ids.insert(slice.id).second);
    CHECK(slice.start_ns <= slice.end_ns);
    if (slice.device) {
      const auto& lanes = trace.devices[*slice.device].lanes;
      CHECK(std::find(lanes.begin(), lanes.end(), slice.lane) != lanes.end());
      // Moved onto the host's clock: never before the host enqueued it.
      CHECK(slice.start_ns >= slice.enqueued_ns);
    }
    if (own_slice(slice)) ++seen[*slice.task];
    if (slice.kind == TraceKind::kernel && own_slice(slice)) {
      CHECK(slice.kernel == "add_to_range");
      CHECK(slice.profile_match == "fixed");
      CHECK(slice.policy == "pinned");
      CHECK(slice.flops == 4096.0);
      CHECK(slice.lane.rfind("compute ", 0) == 0);
    }
  }
  // The host task and, per device, a fill, three kernels and a copy.
  CHECK(seen.size() == run.size());
  for (std::size_t i = 0; i < run.size(); ++i) CHECK(seen[run.task(TaskId{i}).index] == 1);

  // Each kernel of a chain starts after the one before ends (one device clock).
  std::map<std::uint64_t, const TraceSlice*> own;
  for (const TraceSlice& slice : trace.slices) {
    if (own_slice(slice)) own[*slice.task] = &slice;
  }
  for (const auto& [task, slice] : own) {
    for (std::uint64_t before : slice->after) {
      REQUIRE(own.contains(before));
      if (own[before]->device == slice->device && slice->device) CHECK(slice->start_ns >= own[before]->end_ns);
    }
  }

  // In the file: every arrow starts and ends inside an event of its lane.
  const nlohmann::json root = nlohmann::json::parse(to_chrome_trace(trace));
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> spans;
  for (const auto& event : root["traceEvents"]) {
    if (event["ph"] == "X") {
      const double ts = event["ts"];
      spans[{event["pid"].get<int>(), event["tid"].get<int>()}].push_back({ts, ts + event["dur"].get<double>()});
    }
  }
  std::map<std::uint64_t, int> ends;
  for (const auto& event : root["traceEvents"]) {
    if (event["ph"] != "s" && event["ph"] != "f") continue;
    ends[event["id"].get<std::uint64_t>()] += event["ph"] == "s" ? 1 : 10;
    const double ts = event["ts"];
    const auto& on_lane = spans[{event["pid"].get<int>(), event["tid"].get<int>()}];
    CHECK(std::any_of(on_lane.begin(), on_lane.end(),
                      [&](const auto& span) { return span.first <= ts && ts <= span.second; }));
  }
  CHECK(!ends.empty());
  for (const auto& [id, count] : ends) CHECK(count == 11);
  executor.synchronize(copies[0]);
  CHECK(copies[0].host()[0] == 6);
}

TEST_CASE("Executor.Trace.a_task_keeps_its_name_and_exactly_the_tasks_it_follows") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), traced());
  Buffer<int> data(std::vector<int>(64, 0));
  // Names too long to sit inside a string object: the recorder keeps its own copy.
  const auto name = [](int step) { return "a name longer than a short string holds, step " + std::to_string(step); };
  Graph graph;
  std::vector<TaskId> chain;
  for (int step = 0; step < 3; ++step) {
    TaskOptions options;
    options.name = name(step);
    options.device = 0;
    chain.push_back(graph.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)}, options));
  }
  TaskOptions on_host;
  on_host.name = name(3);
  chain.push_back(graph.host({read(data)}, [] {}, on_host));
  const Run run = executor.run(graph);
  executor.wait();
  const Trace trace = executor.trace();

  std::map<std::uint64_t, const TraceSlice*> own;
  for (const TraceSlice& slice : trace.slices) {
    if (own_slice(slice)) own[*slice.task] = &slice;
  }
  REQUIRE(own.size() == chain.size());
  for (std::size_t step = 0; step < chain.size(); ++step) {
    CAPTURE(step);
    const TraceSlice& slice = *own.at(run.task(chain[step]).index);
    const std::string quoted = std::string("'").append(name(static_cast<int>(step))).append("'");
    CHECK(slice.name.find(quoted) != std::string::npos);
    const std::vector<std::uint64_t> follows =
        step == 0 ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{run.task(chain[step - 1]).index};
    CHECK(slice.after == follows);
    if (step < 3) CHECK(slice.kernel == "add_to_range");
  }
}

TEST_CASE("Executor.Trace.replays_and_changed_graphs_keep_each_run_its_own_labels_and_edges") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), traced());
  Buffer<int> data(std::vector<int>(64, 0));
  Graph graph;
  TaskOptions on_device;
  on_device.name = "add";
  on_device.device = 0;
  const TaskId add = graph.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)}, on_device);
  TaskOptions on_host;
  on_host.name = "look";
  const TaskId look = graph.host({read(data)}, [] {}, on_host);
  const Run first = executor.run(graph);
  const Run replay = executor.run(graph);  // the same snapshot
  TaskOptions renamed;
  renamed.name = "look again";
  const TaskId again = graph.host({read(data)}, [] {}, renamed);  // a new snapshot
  const Run changed = executor.run(graph);
  const Run alone_run = executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)});
  const TaskId alone = alone_run.task(TaskId{0});
  executor.wait();
  const Trace trace = executor.trace();

  std::map<std::uint64_t, const TraceSlice*> own;
  for (const TraceSlice& slice : trace.slices) {
    if (own_slice(slice)) own[*slice.task] = &slice;
  }
  REQUIRE(own.size() == 2 + 2 + 3 + 1);
  const auto slice = [&](const Run& run, TaskId task) { return *own.at(run.task(task).index); };
  const auto id = [](const Run& run, TaskId task) { return run.task(task).index; };
  const auto ids = [](std::initializer_list<std::uint64_t> list) { return std::vector<std::uint64_t>(list); };

  CHECK(slice(first, add).name == "task 0 'add' (kernel) of graph run 1");
  CHECK(slice(first, look).name == "task 1 'look' (host) of graph run 1");
  CHECK(slice(replay, add).name == "task 0 'add' (kernel) of graph run 2");
  CHECK(slice(changed, again).name == "task 2 'look again' (host) of graph run 3");
  CHECK(slice(first, add).after.empty());
  CHECK(slice(first, look).after == ids({id(first, add)}));
  // A replay's tasks follow their own run's, and its first the work before it.
  CHECK(slice(replay, look).after == ids({id(replay, add)}));
  CHECK(slice(replay, add).after == ids({id(first, add), id(first, look)}));
  CHECK(slice(changed, again).after == ids({id(changed, add)}));
  CHECK(own.at(alone.index)->name == "task " + std::to_string(alone.index) + " 'add_to_range' (kernel)");
  CHECK(own.at(alone.index)->after == ids({id(changed, add), id(changed, look), id(changed, again)}));
  for (const Run* run : {&first, &replay, &changed}) CHECK(slice(*run, add).policy == "pinned");
  CHECK(own.at(alone.index)->policy != "pinned");
}

TEST_CASE("Executor.Trace.a_failed_task_leaves_the_executor_tracing") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), traced());
  Buffer<int> data(64);
  executor.host({write(data)}, [] { throw std::runtime_error("deliberate"); });
  CHECK_THROWS_AS(executor.trace(), Error);
  executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)});
  const Trace trace = executor.trace();
  std::size_t kernels = 0;
  for (const TraceSlice& slice : trace.slices) kernels += slice.kind == TraceKind::kernel;
  CHECK(kernels == 1);
}

TEST_CASE("Executor.Trace.is_off_unless_asked_for") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  CHECK_THROWS_WITH_AS(executor.trace(), doctest::Contains("ExecutorOptions::trace"), Error);
}

TEST_CASE("Executor.Trace.trace_file_and_timeline_are_written_when_the_executor_goes") {
  if (!have_devices(1)) return;
  TemporaryFolder folder;
  const std::filesystem::path file = folder.path / "run.json";
  {
    ExecutorOptions options = on_selected_devices();
    options.trace_file = file;
    Executor executor(runtime(), options);
    Buffer<int> data(std::vector<int>(1024, 1));
    executor.kernel(conformance, "add_to_range", {Extent(1024)}, {0, 1024, 1, read_write(data)});
    executor.host({read(data)}, [] {});
  }
  const Trace trace = read_chrome_trace(file);
  std::set<TraceKind> kinds;
  for (const TraceSlice& slice : trace.slices) kinds.insert(slice.kind);
  // The kernel was prepared for its device (compiled or read from the
  // compile cache), the input went in, the kernel ran, the host read it back.
  CHECK(kinds == std::set<TraceKind>{TraceKind::compile, TraceKind::copy_in, TraceKind::kernel, TraceKind::copy_out,
                                     TraceKind::host});
  std::ifstream svg_file(std::filesystem::path(file).concat(".svg"));
  const std::string svg{std::istreambuf_iterator<char>(svg_file), std::istreambuf_iterator<char>()};
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(texts_past_the_edge(svg) == std::vector<std::string>{});
}

namespace {

/// Done at its `polls`-th poll: an operation that stays in flight a while.
class DoneAfterPolls final : public AsyncOperation {
 public:
  explicit DoneAfterPolls(int polls) : left_(polls) {}
  bool test() override { return --left_ <= 0; }

 private:
  int left_;
};

}  // namespace

TEST_CASE("Executor.Trace.async_operations_in_flight_at_once_get_tracks_of_their_own") {
  if (!have_devices(1)) return;
  ExecutorOptions options = on_selected_devices();
  options.trace = true;
  Executor executor(runtime(), options);
  constexpr int operations = 4;
  std::vector<Buffer<int>> buffers;
  for (int i = 0; i < operations; ++i) buffers.emplace_back(std::vector<int>(16, i));
  // Started together by the lane, each in flight for some hundred polls.
  for (int i = 0; i < operations; ++i) {
    executor.async({read_write(buffers[i])}, [i] { return std::make_unique<DoneAfterPolls>(100 + 50 * i); });
  }
  const Trace trace = executor.trace();
  std::map<std::string, std::vector<const TraceSlice*>> by_lane;
  int async_slices = 0;
  for (const TraceSlice& slice : trace.slices) {
    if (slice.device) continue;
    by_lane[slice.lane].push_back(&slice);
    if (slice.kind == TraceKind::async) {
      ++async_slices;
      CHECK(slice.lane.rfind("async ", 0) == 0);
    }
  }
  CHECK(async_slices == operations);
  CHECK(by_lane.size() >= 2);  // in flight at once: on tracks of their own
  // Chrome's format forbids slices on one thread that overlap in part.
  for (auto& [lane, slices] : by_lane) {
    std::sort(slices.begin(), slices.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
    for (std::size_t i = 1; i < slices.size(); ++i) {
      CHECK_MESSAGE(slices[i]->start_ns >= slices[i - 1]->end_ns, lane << ": '" << slices[i]->name
                                                                       << "' starts before '" << slices[i - 1]->name << "' ends");
    }
  }
  const UtilizationReport report = analyze(trace);
  CHECK(report.communication_ns > 0);
}

}  // namespace alloy::test
