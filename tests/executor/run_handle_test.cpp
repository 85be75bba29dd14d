// One handle per submission: waiting for one run while others go on, its own
// failures and statistics, task ids unique for the executor's life, and
// ordering after tasks of earlier submissions.
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "embedded/conformance_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

void add_kernel(Graph& graph, Buffer<int>& data, int value) {
  graph.kernel(conformance, "add_to_range", {Extent(round_up(data.size(), 64))},
               {0, static_cast<int>(data.size()), value, read_write(data)});
}

}  // namespace

TEST_CASE("Executor.Runs.wait_for_one_run_while_another_is_held_back") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> quick(256);
  Buffer<int> held(256);
  std::promise<void> gate;
  std::shared_future<void> opened = gate.get_future().share();

  Graph held_back;
  held_back.host({write(held)}, [opened] { opened.wait(); });
  add_kernel(held_back, held, 1);
  Graph fast;
  for (int i = 0; i < 3; ++i) add_kernel(fast, quick, 2);
  fast.host({read(quick)}, [] {});

  Run slow = executor.run(held_back);
  Run done = executor.run(fast);
  done.wait();  // returns although `slow` cannot finish yet
  CHECK(done.done());
  CHECK_FALSE(slow.done());
  CHECK_FALSE(done.failure());
  const RunStatistics statistics = done.statistics();
  CHECK(statistics.tasks == 4);
  CHECK(statistics.host_tasks == 1);
  std::size_t on_devices = 0;
  for (std::size_t count : statistics.tasks_per_device) on_devices += count;
  CHECK(on_devices == 3);
  CHECK(statistics.tasks_per_device.size() == executor.devices().size());
  CHECK(statistics.wall_time.count() > 0);
  // A finished run's wall time stands still.
  CHECK(done.statistics().wall_time == statistics.wall_time);

  gate.set_value();
  slow.wait();
  CHECK(slow.done());
  executor.synchronize(quick);
  executor.synchronize(held);
  for (int value : quick.host()) REQUIRE(value == 6);
  for (int value : held.host()) REQUIRE(value == 1);
  executor.wait();
}

TEST_CASE("Executor.Runs.failures_belong_to_their_run_and_are_reported_once") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(64);
  Graph failing;
  TaskOptions named;
  named.name = "load";
  failing.host({write(data)}, [] { throw std::runtime_error("no input file"); }, named);
  add_kernel(failing, data, 1);  // does not run: depends on the failed task
  Graph fine;
  Buffer<int> other(64);
  add_kernel(fine, other, 3);

  Run bad = executor.run(failing);
  Run good = executor.run(fine);
  good.wait();
  CHECK_FALSE(good.failure());
  try {
    bad.wait();
    FAIL("the failing run's wait() did not throw");
  } catch (const Error& error) {
    const std::string what = error.what();
    CHECK(what.find("'load'") != std::string::npos);
    CHECK(what.find("no input file") != std::string::npos);
    CHECK(what.find("1 more") != std::string::npos);  // the kernel that did not run
  }
  REQUIRE(bad.failure());
  CHECK(bad.failure()->find("no input file") != std::string::npos);
  CHECK_NOTHROW(executor.wait());  // reported by the run already
  CHECK_NOTHROW(bad.wait());       // and only once
  // The executor goes on.
  executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 5, read_write(data)});
  executor.synchronize(data);
  for (int value : data.host()) REQUIRE(value == 5);
  executor.wait();
}

TEST_CASE("Executor.Runs.outlive_their_executor") {
  if (!have_devices(1)) return;
  Buffer<int> data(64);
  Run run;
  CHECK_FALSE(run.valid());
  CHECK_THROWS_AS(run.done(), InvalidArgument);
  {
    Executor executor(runtime(), on_selected_devices());
    Graph graph;
    add_kernel(graph, data, 4);
    run = executor.run(graph);
  }
  CHECK(run.valid());
  CHECK(run.done());
  CHECK_NOTHROW(run.wait());
  CHECK(run.statistics().tasks == 1);
  for (int value : data.host()) REQUIRE(value == 4);
}

TEST_CASE("Executor.Runs.one_task_runs_finish_without_a_wait_of_the_executor") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(64);
  // One-task runs are watched in batches; asking a Run must not depend on
  // the batch filling up or on Executor::wait().
  Run waited = executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)});
  waited.wait();
  CHECK(waited.done());
  Run polled = executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)});
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!polled.done() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  CHECK(polled.done());
  std::size_t on_devices = 0;
  for (std::size_t count : polled.statistics().tasks_per_device) on_devices += count;
  CHECK(on_devices == 1);
  // Asked while its input is still being written by a host task: it is not
  // even enqueued yet when wait() starts.
  executor.host({write(data)}, [&data] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (int& value : data.host()) value = 10;
  });
  Run behind = executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(data)});
  behind.wait();
  CHECK(behind.done());
  executor.synchronize(data);
  for (int value : data.host()) REQUIRE(value == 11);
  executor.wait();
}

TEST_CASE("Executor.TaskIds.unique_for_the_executors_life") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(64);
  Graph graph;
  add_kernel(graph, data, 1);
  add_kernel(graph, data, 1);
  std::vector<std::uint64_t> ids;
  for (int round = 0; round < 3; ++round) {
    Run one = executor.host({}, [] {});
    Run run = executor.run(graph);
    REQUIRE(run.size() == 2);
    ids.push_back(one.task().index);
    ids.push_back(run.task({0}).index);
    ids.push_back(run.task({1}).index);
    CHECK(run.task({1}).index == run.task({0}).index + 1);
    CHECK_THROWS_AS(run.task({2}), InvalidArgument);
    executor.wait();  // forgets finished work; ids go on
  }
  for (std::size_t i = 1; i < ids.size(); ++i) REQUIRE(ids[i] > ids[i - 1]);
}

TEST_CASE("Executor.TaskIds.after_orders_behind_earlier_submissions") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  std::atomic<bool> first_done{false};
  std::atomic<bool> seen_in_order{false};
  // No data in common: only `after` orders the second behind the first.
  const Run first = executor.host({}, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first_done = true;
  });
  TaskOptions after_first;
  after_first.after = {first.task()};
  executor.host({}, [&] { seen_in_order = first_done.load(); }, after_first);
  executor.wait();
  CHECK(seen_in_order);

  // A graph's entry tasks, after an earlier one-task call.
  Buffer<int> data(64);
  first_done = false;
  const Run gate = executor.host({}, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first_done = true;
  });
  Graph graph;
  graph.host({write(data)}, [&] { seen_in_order = first_done.load(); });
  add_kernel(graph, data, 1);
  RunOptions options;
  options.after = {gate.task()};
  seen_in_order = false;
  executor.run(graph, options).wait();
  CHECK(seen_in_order);

  // Ids of work wait() has forgotten are done; ids not given out are refused.
  TaskOptions after_old;
  after_old.after = {first.task()};
  CHECK_NOTHROW(executor.host({}, [] {}, after_old).wait());
  TaskOptions after_future;
  after_future.after = {TaskId{1'000'000}};
  CHECK_THROWS_AS(executor.host({}, [] {}, after_future), InvalidArgument);
  executor.wait();
}

TEST_CASE("Executor.Runs.wait_from_a_host_task_it_contains_is_refused") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  std::promise<Run> handle;
  std::shared_future<Run> run_of_task = handle.get_future().share();
  std::string refused;
  Graph graph;
  graph.host({}, [&] {
    try {
      run_of_task.get().wait();
    } catch (const Error& error) {
      refused = error.what();
    }
  });
  // The host task may start before run() returns: it waits for its handle.
  handle.set_value(executor.run(graph));
  executor.wait();
  CHECK(refused.find("would wait for that task itself") != std::string::npos);
}

}  // namespace alloy::test
