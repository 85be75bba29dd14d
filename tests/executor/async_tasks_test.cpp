// Async tasks: an operation that completes outside any device, started and
// polled on the executor's async lane. Dependents wait for its completion,
// not its start; operations in flight complete in any order; none holds a
// host worker; and a failed one is its task's failure, the executor usable
// after it. A deadlock is reported after a timeout, not left to hang.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "embedded/conformance_source.hpp"
#include "support/finishes_within.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using namespace std::chrono_literals;

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

/// Completes once `ready()` says so, and then runs `complete` (what the
/// operation writes); `polls` counts how often the lane asked.
class Awaited final : public AsyncOperation {
 public:
  Awaited(std::function<bool()> ready, std::function<void()> complete, std::atomic<int>* polls = nullptr)
      : ready_(std::move(ready)), complete_(std::move(complete)), polls_(polls) {}
  bool test() override {
    if (polls_) ++*polls_;
    if (!ready_()) return false;
    if (complete_) complete_();
    return true;
  }

 private:
  std::function<bool()> ready_;
  std::function<void()> complete_;
  std::atomic<int>* polls_;
};

/// Completes at its `polls`-th poll.
std::function<bool()> after_polls(int polls) {
  return [left = polls]() mutable { return --left <= 0; };
}

}  // namespace

TEST_CASE("Executor.AsyncTasks.dependents_wait_for_completion_not_start") {
  if (!have_devices(1)) return;
  // A kernel writes on the device, an async task reads it on the host and
  // completes only after several polls, writing a second buffer; a kernel
  // after it adds to what it wrote.
  Executor executor(runtime(), on_first_device());
  Buffer<int> produced(64);
  Buffer<int> received(64);
  std::atomic<int> polls{0};
  std::vector<int> seen_at_start;
  for (int& value : produced.host()) value = 0;
  executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 5, read_write(produced)});
  executor.async({read(produced), write(received)}, [&]() -> std::unique_ptr<AsyncOperation> {
    seen_at_start.assign(produced.host().begin(), produced.host().end());
    return std::make_unique<Awaited>(after_polls(20), [&] {
      for (int i = 0; i < 64; ++i) received.host()[i] = produced.host()[i] * 3 + i;
    }, &polls);
  });
  executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 1, read_write(received)});
  executor.synchronize(received);
  CHECK(polls.load() >= 20);
  REQUIRE(seen_at_start.size() == 64);
  for (int i = 0; i < 64; ++i) {
    CAPTURE(i);
    CHECK(seen_at_start[i] == 5);
    CHECK(received.host()[i] == 5 * 3 + i + 1);
  }
  executor.wait();
}

TEST_CASE("Executor.AsyncTasks.complete_in_any_order") {
  if (!have_devices(1)) return;
  // Each operation completes only once the one started after it has: polled
  // in turn, they finish last to first; waited for in order, never.
  constexpr int count = 8;
  Executor executor(runtime(), on_first_device());
  Buffer<int> slots(count);
  std::vector<std::atomic<bool>> done(count);
  std::vector<int> finish_order;
  std::mutex order_mutex;
  for (int t = 0; t < count; ++t) {
    executor.async({write(slots.slice(t, 1))}, [&, t]() -> std::unique_ptr<AsyncOperation> {
      return std::make_unique<Awaited>([&, t] { return t == count - 1 || done[t + 1].load(); },
                                       [&, t] {
                                         slots.host()[t] = 100 + t;
                                         std::lock_guard lock(order_mutex);
                                         finish_order.push_back(t);
                                         done[t] = true;
                                       });
    });
  }
  finishes_within(20s, "async operations that complete in reverse order", [&] { executor.wait(); });
  REQUIRE(finish_order.size() == count);
  for (int t = 0; t < count; ++t) {
    CAPTURE(t);
    CHECK(finish_order[t] == count - 1 - t);
    CHECK(slots.host()[t] == 100 + t);
  }
}

TEST_CASE("Executor.AsyncTasks.hold_no_host_worker") {
  if (!have_devices(1)) return;
  // One host thread: the operation completes only after a host task
  // submitted later has run, which it could not if it held that thread.
  Executor executor(runtime(), on_first_device(1));
  Buffer<int> unrelated(1);
  std::atomic<bool> host_task_ran{false};
  std::atomic<bool> completed{false};
  executor.async({}, [&]() -> std::unique_ptr<AsyncOperation> {
    return std::make_unique<Awaited>([&] { return host_task_ran.load(); }, [&] { completed = true; });
  });
  executor.host({write(unrelated)}, [&] { host_task_ran = true; });
  finishes_within(20s, "an async task waiting for a later host task", [&] { executor.wait(); });
  CHECK(completed.load());
}

TEST_CASE("Executor.AsyncTasks.a_failure_is_the_task_s_and_the_executor_goes_on") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_first_device());
  Buffer<int> data(16);
  TaskOptions polled;
  polled.name = "fails when polled";
  executor.async({write(data)}, [] {
    return std::make_unique<Awaited>([]() -> bool { throw std::runtime_error("the peer went away"); }, nullptr);
  }, polled);
  bool after_ran = false;
  executor.host({read(data)}, [&] { after_ran = true; });
  try {
    executor.wait();
    FAIL("wait() did not report the failed operation");
  } catch (const Error& error) {
    const std::string text = error.what();
    CAPTURE(text);
    CHECK(text.find("'fails when polled' (async) failed") != std::string::npos);
    CHECK(text.find("the peer went away") != std::string::npos);
  }
  CHECK_FALSE(after_ran);

  TaskOptions starting;
  starting.name = "fails to start";
  executor.async({write(data)}, []() -> std::unique_ptr<AsyncOperation> { throw std::runtime_error("no route"); },
                 starting);
  CHECK_THROWS_WITH_AS(executor.wait(), doctest::Contains("'fails to start' (async) failed"), Error);
  executor.async({write(data)}, [] { return std::unique_ptr<AsyncOperation>(); });
  CHECK_THROWS_WITH_AS(executor.wait(), doctest::Contains("gave no operation to poll"), Error);

  // Still usable: the next operation writes, and a kernel after it sees that.
  executor.async({write(data)}, [&] {
    return std::make_unique<Awaited>(after_polls(3), [&] {
      for (int& value : data.host()) value = 40;
    });
  });
  executor.kernel(conformance, "add_to_range", {Extent(16)}, {0, 16, 2, read_write(data)});
  executor.synchronize(data);
  for (int value : data.host()) CHECK(value == 42);
  CHECK_THROWS_AS(executor.async({}, AsyncStart{}), InvalidArgument);
}

TEST_CASE("Executor.AsyncTasks.in_a_graph_run_many_times") {
  if (!have_devices(1)) return;
  // A graph's async task starts a fresh operation on every run.
  Executor executor(runtime(), on_first_device());
  Buffer<int> value(1);
  value.host()[0] = 0;
  std::atomic<int> started{0};
  Graph graph;
  graph.async({read_write(value)}, [&] {
    ++started;
    return std::make_unique<Awaited>(after_polls(2), [&] { value.host()[0] = value.host()[0] * 2 + 1; });
  });
  graph.kernel(conformance, "add_to_range", {Extent(1)}, {0, 1, 1, read_write(value)});
  for (int run = 0; run < 5; ++run) executor.run(graph);
  executor.synchronize(value);
  CHECK(started.load() == 5);
  int expected = 0;
  for (int run = 0; run < 5; ++run) expected = expected * 2 + 1 + 1;
  CHECK(value.host()[0] == expected);
  executor.wait();
}

}  // namespace alloy::test
