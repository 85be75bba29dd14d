// The executor: data flow between device and host tasks, coherence across
// devices and slices, replay, failures, and submission from several threads.
#include <numeric>
#include <thread>

#include "embedded/conformance_source.hpp"
#include "replicas.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

Run add(Executor& executor, Buffer<int>& data, int first, int count, int value,
        std::optional<std::size_t> device = std::nullopt) {
  TaskOptions options;
  options.device = device;
  return executor.kernel(conformance, "add_to_range", {Extent(round_up(count, 64))},
                         {first, count, value, read_write(data.slice(first, count))}, options);
}

}  // namespace

TEST_CASE("Executor.DataFlow.device_then_host_then_device") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  std::vector<int> initial(1000);
  std::iota(initial.begin(), initial.end(), 0);
  Buffer<int> data{std::span<const int>(initial)};
  add(executor, data, 0, 1000, 5);
  executor.host({read_write(data)}, [&] {
    for (int& value : data.host()) value *= 2;
  });
  add(executor, data, 0, 1000, 1);
  executor.synchronize(data);
  for (int i = 0; i < 1000; ++i) REQUIRE(data.host()[i] == (i + 5) * 2 + 1);
  executor.wait();
}

TEST_CASE("Executor.Coherence.chain_alternating_devices") {
  if (!have_devices(2)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(4096);
  for (int step = 0; step < 10; ++step) add(executor, data, 0, 4096, 1, step % 2);
  executor.synchronize(data);
  for (int value : data.host()) REQUIRE(value == 10);
  executor.wait();
  CHECK(executor.tasks_per_device() == std::vector<std::size_t>{5, 5});
}

TEST_CASE("Executor.Coherence.disjoint_slices_on_two_devices") {
  if (!have_devices(2)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(2000);
  add(executor, data, 0, 1000, 3, 0);
  add(executor, data, 1000, 1000, 4, 1);
  // Reading the whole buffer on device 0 needs the upper half from device 1.
  Buffer<int> result(2000);
  TaskOptions on_first;
  on_first.device = 0;
  executor.kernel(conformance, "scale_offset", {Extent(2048)},
                  {2000, 10, 1, read(data), write(result)}, on_first);
  executor.synchronize(result);
  for (int i = 0; i < 2000; ++i) REQUIRE(result.host()[i] == (i < 1000 ? 31 : 41));
  executor.wait();
}

TEST_CASE("Executor.Graph.replay_accumulates") {
  if (!have_devices(1)) return;
  Buffer<int> data(512);
  Graph graph;
  graph.kernel(conformance, "add_to_range", {Extent(512)}, {0, 512, 2, read_write(data)});
  graph.host({read_write(data.slice(0, 1))}, [&] { data.host()[0] += 100; });
  Executor executor(runtime(), on_selected_devices());
  for (int run = 0; run < 5; ++run) executor.run(graph);
  executor.synchronize(data);
  CHECK(data.host()[0] == 5 * 102);
  CHECK(data.host()[511] == 10);
  executor.wait();
}

TEST_CASE("Executor.Graph.copy_and_fill_tasks") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> source(256);
  Buffer<int> target(256);
  executor.fill(source.slice(0, 128), 7);
  executor.fill(source.slice(128, 128), 9);
  executor.copy(source.slice(64, 128), target.slice(0, 128));
  executor.synchronize(target);
  for (int i = 0; i < 128; ++i) REQUIRE(target.host()[i] == (i < 64 ? 7 : 9));
  for (int i = 128; i < 256; ++i) REQUIRE(target.host()[i] == 0);
  executor.wait();
}

TEST_CASE("Executor.Errors.failure_fails_dependents_only") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> broken(64);
  Buffer<int> fine(64);
  // A local size no device takes: the launch is refused.
  TaskOptions named;
  named.name = "refused";
  const std::size_t too_large = selected_devices().front()->info().max_work_group_size * 2;
  executor.kernel(conformance, "add_to_range", {Extent(too_large), Extent(too_large)},
                  {0, 64, 1, read_write(broken)}, named);
  bool dependent_ran = false;
  executor.host({read(broken)}, [&] { dependent_ran = true; });
  add(executor, fine, 0, 64, 1);
  try {
    executor.wait();
    FAIL("a refused launch was not reported");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find("task 0 'refused' (kernel) failed") != std::string::npos);
  }
  CHECK_FALSE(dependent_ran);
  // Unrelated work ran, and the executor still works.
  executor.synchronize(fine);
  CHECK(fine.host()[63] == 1);
  add(executor, fine, 0, 64, 1);
  executor.synchronize(fine);
  CHECK(fine.host()[0] == 2);
  executor.wait();
}

TEST_CASE("Executor.Errors.host_exception_reported") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(16);
  TaskOptions named;
  named.name = "thrower";
  executor.host({write(data)}, [] { throw std::runtime_error("host function broke"); }, named);
  CHECK_THROWS_WITH_AS(executor.synchronize(data),
                       doctest::Contains("depends on task 0 'thrower' (host), which failed: host function broke"),
                       Error);
  CHECK_THROWS_WITH_AS(executor.wait(), doctest::Contains("'thrower' (host) failed: host function broke"),
                       Error);
  executor.wait();  // reported once; the executor is clean again
}

TEST_CASE("Executor.Submission.from_several_threads") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  constexpr int threads = 4;
  std::vector<Buffer<int>> buffers;
  for (int t = 0; t < threads; ++t) buffers.emplace_back(256);
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t) {
    submitters.emplace_back([&, t] {
      for (int step = 0; step < 20; ++step) add(executor, buffers[t], 0, 256, t + 1);
    });
  }
  for (std::thread& submitter : submitters) submitter.join();
  executor.wait();
  for (int t = 0; t < threads; ++t) {
    executor.synchronize(buffers[t]);
    for (int value : buffers[t].host()) REQUIRE(value == 20 * (t + 1));
  }
}

TEST_CASE("Executor.Submission.waits_from_several_threads") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(256);
  // Rounds of work, each waited for by four threads at once: one of them
  // forgets the finished tasks while the others still look at them.
  for (int round = 1; round <= 20; ++round) {
    for (int step = 0; step < 10; ++step) add(executor, data, 0, 256, 1);
    std::vector<std::thread> waiters;
    for (int t = 0; t < 4; ++t) waiters.emplace_back([&] { executor.wait(); });
    for (std::thread& waiter : waiters) waiter.join();
    executor.synchronize(data);
    REQUIRE(data.host()[255] == 10 * round);
  }
  executor.wait();
}

TEST_CASE("Executor.Buffers.pinned_host_memory") {
  if (!have_devices(1)) return;
  Device& device = *selected_devices().front();
  std::vector<int> initial(4096);
  std::iota(initial.begin(), initial.end(), 0);
  Buffer<int> data(device, std::span<const int>(initial));
  CHECK(data.storage()->pinned());
  Buffer<int> zeroed(device, 100);
  for (int value : zeroed.host()) REQUIRE(value == 0);
  Executor executor(runtime(), on_selected_devices());
  add(executor, data, 0, 4096, 7);
  executor.synchronize(data);
  for (int i = 0; i < 4096; ++i) REQUIRE(data.host()[i] == i + 7);
  executor.wait();
}

TEST_CASE("Executor.Lifetime.buffers_come_home") {
  if (!have_devices(1)) return;
  Buffer<int> data(100);
  {
    Executor executor(runtime(), on_selected_devices());
    add(executor, data, 0, 100, 42);
  }
  CHECK(replica_count(*data.storage()) == 0);
  for (int value : data.host()) REQUIRE(value == 42);
}

}  // namespace alloy::test
