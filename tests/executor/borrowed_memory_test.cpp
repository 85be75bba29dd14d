// Buffers over the caller's memory: copies move straight between it and
// device buffers, host tasks use it in place, devices never replicate it;
// and timed runs report each command's lane and device time.
#include <numeric>

#include "embedded/conformance_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

TaskOptions on_device_0() {
  TaskOptions options;
  options.device = 0;
  return options;
}

}  // namespace

TEST_CASE("Executor.Borrowed.copies_in_and_out_without_replicating_the_array") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  std::vector<int> source(1000);
  std::iota(source.begin(), source.end(), 0);
  std::vector<int> result(1000, -1);
  auto input = Buffer<int>::borrow_read_only(source);
  auto output = Buffer<int>::borrow(std::span<int>(result));
  Buffer<int> on_device(256);

  Graph graph;
  // Elements [500, 756) through the device, with 1 added, into [100, 356).
  graph.copy(input.slice(500, 256), on_device.whole(), on_device_0());
  graph.kernel(conformance, "add_to_range", {Extent(256)}, {0, 256, 1, read_write(on_device)}, on_device_0());
  graph.copy(on_device.whole(), output.slice(100, 256), on_device_0());
  // A host task reads the borrowed output in place, after the copy home.
  int seen = 0;
  graph.host({read(output.slice(100, 1))}, [&] { seen = result[100]; });
  executor.run(graph).wait();

  CHECK(seen == 501);
  for (std::size_t i = 0; i < result.size(); ++i) {
    const int expected = i >= 100 && i < 356 ? static_cast<int>(i) + 400 + 1 : -1;
    REQUIRE(result[i] == expected);
  }
  CHECK(source[500] == 500);  // read only
}

TEST_CASE("Executor.Borrowed.misuse_is_refused_when_the_task_is_added") {
  std::vector<int> values(64);
  auto read_only = Buffer<int>::borrow_read_only(values);
  auto writable = Buffer<int>::borrow(std::span<int>(values));
  Buffer<int> ordinary(64);
  Graph graph;
  CHECK_THROWS_AS(graph.copy(ordinary.whole(), read_only.whole()), InvalidArgument);
  CHECK_THROWS_AS(graph.host({write(read_only)}, [] {}), InvalidArgument);
  CHECK_THROWS_AS(graph.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(writable)}),
                  InvalidArgument);
  CHECK_THROWS_AS(graph.fill(writable.whole(), 0), InvalidArgument);
  CHECK_THROWS_AS(graph.copy(read_only.whole(), writable.whole()), InvalidArgument);
  CHECK(graph.size() == 0);
  graph.host({read_write(writable)}, [] {});  // host tasks use it in place
  CHECK(graph.size() == 1);
}

TEST_CASE("Executor.TimedRuns.report_each_command_with_its_lane") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  std::vector<int> values(512, 3);
  auto home = Buffer<int>::borrow(std::span<int>(values));
  Buffer<int> on_device(512);
  Graph graph;
  const TaskId in = graph.copy(home.whole(), on_device.whole(), on_device_0());
  const TaskId work =
      graph.kernel(conformance, "add_to_range", {Extent(512)}, {0, 512, 1, read_write(on_device)}, on_device_0());
  const TaskId out = graph.copy(on_device.whole(), home.whole(), on_device_0());
  RunOptions options;
  options.timed = true;
  const Run run = executor.run(graph, options);
  const std::vector<CommandTime> times = run.command_times();
  REQUIRE(times.size() == 3);
  CHECK(times[0].task == run.task(in));
  CHECK(times[0].lane == Lane::copy_in);
  CHECK(times[1].task == run.task(work));
  CHECK(times[1].lane == Lane::compute);
  CHECK(times[2].task == run.task(out));
  CHECK(times[2].lane == Lane::copy_out);
  for (const CommandTime& time : times) {
    CHECK(time.device == 0);
    CHECK(time.ended_ns >= time.started_ns);
  }
  // In order on the device's clock: each waited for the one before.
  CHECK(times[1].started_ns >= times[0].ended_ns);
  CHECK(times[2].started_ns >= times[1].ended_ns);
  CHECK(values[0] == 4);

  const Run untimed = executor.run(graph);
  CHECK_THROWS_AS(untimed.command_times(), Error);
  untimed.wait();
}

}  // namespace alloy::test
