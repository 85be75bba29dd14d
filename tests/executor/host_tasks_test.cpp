// Host tasks: independent ones run at once, up to the executor's pool size;
// blocking calls made from them (synchronize, wait) never deadlock the
// runtime, or are refused with an error. A deadlock is reported as a failure
// after a timeout, not left to hang.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <thread>

#include "embedded/conformance_source.hpp"
#include "embedded/slices_source.hpp"
#include "support/finishes_within.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using namespace std::chrono_literals;

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};
const ProgramSource ranges{"slices.cl", std::string(alloy_kernels::slices_source), ""};

/// Opens once `count` threads arrived, or after a time limit; says which.
class Rendezvous {
 public:
  explicit Rendezvous(int count) : missing_(count) {}
  bool arrive_and_wait(std::chrono::seconds limit) {
    std::unique_lock lock(mutex_);
    if (--missing_ == 0) all_here_.notify_all();
    return all_here_.wait_for(lock, limit, [&] { return missing_ <= 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_here_;
  int missing_;
};

}  // namespace

TEST_CASE("Executor.HostTasks.independent_ones_run_at_once") {
  if (!have_devices(1)) return;
  // Six tasks that can only finish once all six have started: one at a
  // time, none would. The pool is sized past the two cores CI has.
  Executor executor(runtime(), on_first_device(6));
  Buffer<int> data(6);
  Rendezvous all_six(6);
  std::atomic<int> met{0};
  for (int t = 0; t < 6; ++t) {
    executor.host({read_write(data.slice(t, 1))}, [&] {
      if (all_six.arrive_and_wait(20s)) ++met;
    });
  }
  executor.wait();
  CHECK(met == 6);
}

TEST_CASE("Executor.HostTasks.pool_size_bounds_how_many_run") {
  if (!have_devices(1)) return;
  // Each task stays until two ran at once (or 2 s passed): with a limit of
  // two, the most seen at once is exactly two.
  Executor executor(runtime(), on_first_device(2));
  std::mutex mutex;
  std::condition_variable changed;
  int running = 0;
  int most = 0;
  for (int t = 0; t < 8; ++t) {
    executor.host({}, [&] {
      std::unique_lock lock(mutex);
      most = std::max(most, ++running);
      changed.notify_all();
      changed.wait_for(lock, 2s, [&] { return most >= 2; });
      lock.unlock();
      std::this_thread::sleep_for(5ms);  // lets a third start, if the pool would
      lock.lock();
      --running;
    });
  }
  executor.wait();
  CHECK(most == 2);
}

TEST_CASE("Executor.HostTasks.one_fed_by_a_device_is_not_held_up_by_another_device") {
  if (!have_devices(2)) return;
  // A graph run keeps device 0 busy for a while (about 1 s on a CPU); a
  // later one feeds a host task from a quick kernel on device 1. The host
  // task starts when device 1 is done, not behind device 0's kernel, which
  // was handed in first.
  ExecutorOptions options;
  options.devices = {selected_devices()[0], selected_devices()[1]};
  Executor executor(runtime(), options);
  const int iterations = computes_on_cpu(*selected_devices()[0]) ? 1'000'000'000 : 2'000'000'000;
  Buffer<float> busy(1);
  Buffer<int> fed(64);
  TaskOptions on_first;
  on_first.device = 0;
  TaskOptions on_second;
  on_second.device = 1;
  Graph long_kernel;
  long_kernel.kernel(conformance, "spin", {Extent(1)}, {iterations, write(busy)}, on_first);
  Graph quick_then_host;
  quick_then_host.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 3, read_write(fed)}, on_second);
  Run spinning = executor.run(long_kernel);
  std::atomic<bool> ran_while_spinning{false};
  int seen = 0;
  quick_then_host.host({read(fed)}, [&] {
    ran_while_spinning = !spinning.done();
    seen = fed.host()[63];
  });
  executor.run(quick_then_host).wait();
  CHECK(seen == 3);
  CHECK(ran_while_spinning);
  executor.wait();
}

TEST_CASE("Executor.HostTasks.synchronize_is_not_held_up_by_other_executors") {
  if (!have_devices(1)) return;
  // Executor A's only host thread is busy until B's synchronize returned.
  Executor busy(runtime(), on_first_device(1));
  Executor idle(runtime(), on_first_device(1));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  busy.host({}, [released] { released.wait_for(30s); });
  Buffer<int> data(64);
  idle.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 7, read_write(data)});
  finishes_within(20s, "synchronize on an idle executor", [&] { idle.synchronize(data); });
  CHECK(data.host()[63] == 7);
  release.set_value();
  busy.wait();
  idle.wait();
}

TEST_CASE("Executor.HostTasks.may_synchronize_another_executor") {
  if (!have_devices(1)) return;
  // One host thread each: A's task blocks in B's synchronize, which needs
  // B's host task and its device work.
  Executor first(runtime(), on_first_device(1));
  Executor second(runtime(), on_first_device(1));
  Buffer<int> shared_result(64);
  Buffer<int> mine(1);
  second.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 2, read_write(shared_result)});
  second.host({read_write(shared_result)}, [&] {
    for (int& value : shared_result.host()) value *= 10;
  });
  int seen = 0;
  first.host({write(mine)}, [&] {
    second.synchronize(shared_result);
    seen = shared_result.host()[0];
    mine.host()[0] = seen;
  });
  finishes_within(20s, "a host task synchronizing another executor", [&] { first.wait(); });
  CHECK(seen == 20);
  second.wait();
}

TEST_CASE("Executor.HostTasks.may_synchronize_own_executor_on_other_work") {
  if (!have_devices(1)) return;
  // One host thread: the task waits for another host task of its own
  // executor, which can run only because the waiting one lends its place.
  Executor executor(runtime(), on_first_device(1));
  Buffer<int> input(16);
  Buffer<int> output(16);
  std::promise<void> submitted;
  auto all_submitted = submitted.get_future().share();
  executor.host({read_write(output)}, [&, all_submitted] {
    all_submitted.wait();
    executor.synchronize(input);  // written by the task submitted next
    for (int i = 0; i < 16; ++i) output.host()[i] = input.host()[i] + 1;
  });
  executor.host({write(input)}, [&] {
    for (int& value : input.host()) value = 41;
  });
  submitted.set_value();
  finishes_within(20s, "a host task synchronizing its own executor", [&] { executor.wait(); });
  executor.synchronize(output);
  CHECK(output.host()[15] == 42);
}

TEST_CASE("Executor.HostTasks.blocking_past_the_thread_ceiling_fails_the_task") {
  if (!have_devices(1)) return;
  // One host task may run and one may block. The first blocks in another
  // executor's synchronize; the second to block fails with an error that
  // names the ceiling, and the executor goes on.
  ExecutorOptions options = on_first_device(1);
  options.host_thread_ceiling = 2;
  Executor executor(runtime(), options);
  Executor other(runtime(), on_first_device(1));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  Buffer<int> held(4);
  other.host({write(held)}, [released] { released.wait_for(30s); });
  std::promise<void> first_blocking;
  executor.host({}, [&] {
    first_blocking.set_value();
    other.synchronize(held);
  });
  first_blocking.get_future().wait();
  Run refused = executor.host({}, [&] { other.synchronize(held); });
  std::string error;
  try {
    refused.wait();
  } catch (const Error& failure) {
    error = failure.what();
  }
  CHECK(error.find("host_thread_ceiling") != std::string::npos);
  release.set_value();
  Buffer<int> after(4);
  executor.host({write(after)}, [&] { after.host()[0] = 7; });
  executor.synchronize(after);
  CHECK(after.host()[0] == 7);
  executor.wait();  // the refused task's failure was reported by its Run
  other.wait();
}

TEST_CASE("Executor.HostTasks.blocking_on_itself_is_refused") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_first_device(2));
  Buffer<int> data(16);
  Buffer<int> later(16);
  std::string synchronize_error;
  std::string wait_error;
  std::string transitive_error;
  std::promise<void> submitted;
  auto all_submitted = submitted.get_future().share();
  executor.host({write(data)}, [&, all_submitted] {
    all_submitted.wait();
    try {
      executor.synchronize(data);  // written by this very task
    } catch (const Error& error) {
      synchronize_error = error.what();
    }
    try {
      executor.synchronize(later);  // written by a kernel that reads this task's output
    } catch (const Error& error) {
      transitive_error = error.what();
    }
    try {
      executor.wait();
    } catch (const Error& error) {
      wait_error = error.what();
    }
  });
  executor.kernel(ranges, "copy_range", {Extent(16)}, {0, 0, 16, read(data), write(later)});
  submitted.set_value();
  finishes_within(20s, "a host task blocking on itself", [&] { executor.wait(); });
  CHECK(synchronize_error.find("would wait for that task itself") != std::string::npos);
  CHECK(transitive_error.find("would wait for that task itself") != std::string::npos);
  CHECK(wait_error.find("wait called from task 0") != std::string::npos);
}

TEST_CASE("Executor.HostTasks.synchronize_cycle_across_executors_is_refused") {
  if (!have_devices(1)) return;
  // A's task waits in B's synchronize for B's task, which waits in A's
  // synchronize for A's task: the second to wait is refused, naming both
  // tasks, and the first then gets its slice.
  Executor a(runtime(), on_first_device(1));
  Executor b(runtime(), on_first_device(1));
  Buffer<int> from_a(std::vector<int>(4, 0));
  Buffer<int> from_b(std::vector<int>(4, 0));
  Rendezvous both_running(2);
  std::mutex mutex;
  std::vector<std::string> errors;
  const auto waits_on = [&](Executor& other_executor, Buffer<int>& its_buffer) {
    return [&, other = &other_executor, buffer = &its_buffer] {
      both_running.arrive_and_wait(20s);
      try {
        other->synchronize(*buffer);
      } catch (const Error& error) {
        std::lock_guard lock(mutex);
        errors.emplace_back(error.what());
      }
    };
  };
  TaskOptions named_a;
  named_a.name = "in A";
  TaskOptions named_b;
  named_b.name = "in B";
  a.host({write(from_a)}, waits_on(b, from_b), named_a);
  b.host({write(from_b)}, waits_on(a, from_a), named_b);
  finishes_within(20s, "two executors' host tasks synchronizing each other", [&] {
    a.wait();
    b.wait();
  });
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("task 0 'in A' (host)") != std::string::npos);
  CHECK(errors[0].find("task 0 'in B' (host)") != std::string::npos);
  CHECK(errors[0].find("another executor") != std::string::npos);
}

}  // namespace alloy::test
