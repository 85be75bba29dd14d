// Ordering between tasks that share data: read after write, write after
// read, write after write, overlapping and disjoint slices, host views, and
// explicit edges.
//
// In-order queues would hide a missing edge between two kernels on one
// queue, so each case first holds its earliest task back behind a host task
// that pauses (slow_host_write): device tasks that depend on a host task are
// not submitted before it finishes. A later task the executor failed to
// order would run during the pause, see old data and fail the checks.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <span>
#include <thread>

#include "embedded/conformance_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

/// Long against a kernel launch, short against the test's run time.
constexpr auto pause = std::chrono::milliseconds(100);

/// Device 1 when the backend has two devices, else device 0: the cases run
/// across devices where they can and on one device otherwise.
std::size_t second_device() { return selected_devices().size() >= 2 ? 1 : 0; }

TaskOptions on_device(std::size_t device) {
  TaskOptions options;
  options.device = device;
  return options;
}

/// data[first, first + count) += value, on `device`.
Run add(Executor& executor, Buffer<int>& data, int first, int count, int value,
        std::size_t device = 0) {
  return executor.kernel(conformance, "add_to_range", {Extent(round_up(count, 64))},
                         {first, count, value, read_write(data.slice(first, count))}, on_device(device));
}

/// out[0, n) = in[0, n) * factor + offset, on `device`; `out` is written whole.
Run scale(Executor& executor, Buffer<int>& in, Buffer<int>& out, int factor, int offset,
          std::size_t device = 0) {
  const int n = static_cast<int>(out.size());
  return executor.kernel(conformance, "scale_offset", {Extent(round_up(n, 64))},
                         {n, factor, offset, read(in.slice(0, n)), write(out)}, on_device(device));
}

/// After `pause`, sets data[first, first + count) to `value` on the host.
Run slow_host_write(Executor& executor, Buffer<int>& data, int first, int count, int value) {
  return executor.host({write(data.slice(first, count))}, [data, first, count, value]() mutable {
    std::this_thread::sleep_for(pause);
    for (int i = first; i < first + count; ++i) data.host()[i] = value;
  });
}

/// Checks that values[first, first + count) all equal `expected`; reports
/// the first index that does not.
void check_range(std::span<const int> values, int first, int count, int expected) {
  for (int i = first; i < first + count; ++i) {
    if (values[i] != expected) {
      FAIL_CHECK("element " << i << " is " << values[i] << ", expected " << expected << " (range ["
                            << first << ", " << first + count << "))");
      return;
    }
  }
}

bool depends_on(const Graph& graph, TaskId task, TaskId before) {
  const std::vector<TaskId>& dependencies = graph.dependencies(task);
  return std::find(dependencies.begin(), dependencies.end(), before) != dependencies.end();
}

}  // namespace

TEST_CASE("Executor.Dependencies.read_after_write") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  constexpr int n = 1000;
  Buffer<int> data(n);
  Buffer<int> result(n);
  slow_host_write(executor, data, 0, n, 1);
  add(executor, data, 0, n, 5);                               // data = 6, once the host has written
  scale(executor, data, result, 10, 1, second_device());     // must read 6, not 0 or 1
  executor.synchronize(result);
  check_range(result.host(), 0, n, 61);
  executor.synchronize(data);
  check_range(data.host(), 0, n, 6);
  executor.wait();
}

TEST_CASE("Executor.Dependencies.write_after_read") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  constexpr int n = 1000;
  std::vector<int> initial(n);
  std::iota(initial.begin(), initial.end(), 0);
  Buffer<int> x{std::span<const int>(initial)};
  Buffer<int> y(n);
  // The reader writes y, so it waits for this host write to y (write after
  // write); the overwrite of x must then wait for the reader in turn.
  slow_host_write(executor, y, 0, n, -7);
  scale(executor, x, y, 1, 0);                        // y = x, the old values
  executor.fill(x.whole(), -1, on_device(second_device()));  // then x is overwritten
  executor.synchronize(y);
  for (int i = 0; i < n; ++i) REQUIRE(y.host()[i] == i);
  executor.synchronize(x);
  check_range(x.host(), 0, n, -1);
  executor.wait();
}

TEST_CASE("Executor.Dependencies.write_after_write") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  constexpr int n = 1000;
  Buffer<int> unused(n);
  // One device: a kernel's write, then a fill's (on another queue).
  Buffer<int> same_device(n);
  slow_host_write(executor, same_device, 0, n, 1);
  scale(executor, unused, same_device, 0, 111);          // same_device = 111
  executor.fill(same_device.slice(0, n), 222, on_device(0));  // then 222
  // Two devices where there are two: kernel writes on each, in order.
  Buffer<int> across(n);
  slow_host_write(executor, across, 0, n, 1);
  scale(executor, unused, across, 0, 111, 0);
  scale(executor, unused, across, 0, 333, second_device());
  executor.synchronize(same_device);
  check_range(same_device.host(), 0, n, 222);
  executor.synchronize(across);
  check_range(across.host(), 0, n, 333);
  executor.wait();
}

TEST_CASE("Executor.Dependencies.overlapping_slices_conflict") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  Buffer<int> data(200);
  slow_host_write(executor, data, 0, 100, 10);           // [0, 100) = 10
  add(executor, data, 0, 100, 5);                        // [0, 100) = 15
  executor.fill(data.slice(50, 100), 9, on_device(second_device()));  // [50, 150) = 9
  add(executor, data, 120, 60, 4);                       // [120, 180) += 4
  executor.synchronize(data);
  const std::span<const int> values = data.host();
  check_range(values, 0, 50, 15);    // only the first add
  check_range(values, 50, 70, 9);    // the fill came after the add
  check_range(values, 120, 30, 13);  // the second add came after the fill
  check_range(values, 150, 30, 4);
  check_range(values, 180, 20, 0);   // never written
  executor.wait();
}

TEST_CASE("Executor.Dependencies.disjoint_slices_independent") {
  // Skips first: a skip after a failed check would hide the failure.
  if (!have_devices(1)) return;
  Buffer<int> data(100);
  Graph graph;
  const TaskId low = graph.kernel(conformance, "add_to_range", {Extent(64)},
                                  {0, 50, 1, read_write(data.slice(0, 50))});
  const TaskId high = graph.kernel(conformance, "add_to_range", {Extent(64)},
                                   {50, 50, 2, read_write(data.slice(50, 50))});
  const TaskId middle = graph.fill(data.slice(40, 20), 7);
  const TaskId tail = graph.kernel(conformance, "add_to_range", {Extent(64)},
                                   {90, 10, 3, read_write(data.slice(90, 10))});
  CHECK(graph.dependencies(low).empty());
  CHECK(graph.dependencies(high).empty());  // disjoint from `low`
  CHECK(depends_on(graph, middle, low));          // overlaps both
  CHECK(depends_on(graph, middle, high));
  CHECK(graph.dependencies(middle).size() == 2);
  CHECK(depends_on(graph, tail, high));           // overlaps `high` alone
  CHECK(graph.dependencies(tail).size() == 1);

  // And run: every write lands, the independent ones on different devices
  // where there are two.
  ExecutorOptions options = on_selected_devices();
  options.policy = SchedulingPolicy::round_robin;
  Executor executor(runtime(), options);
  executor.run(graph);
  executor.synchronize(data);
  const std::span<const int> values = data.host();
  check_range(values, 0, 40, 1);
  check_range(values, 40, 20, 7);
  check_range(values, 60, 30, 2);
  check_range(values, 90, 10, 5);
  executor.wait();
}

TEST_CASE("Executor.Dependencies.host_view_waits_for_pending_writes") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  constexpr int n = 1000;
  Buffer<int> data(n);
  slow_host_write(executor, data, 0, n, 1);
  for (int step = 0; step < 6; ++step) add(executor, data, 0, n, 1, step % 2 == 0 ? 0 : second_device());
  add(executor, data, 200, 300, 10);  // [200, 500) = 17
  // synchronize() of a slice returns once that slice is current on the host.
  executor.synchronize(data.slice(200, 300));
  check_range(data.host(), 200, 300, 17);

  // A host task reading the buffer sees every earlier device write.
  slow_host_write(executor, data, 0, n, 100);
  add(executor, data, 0, 500, 10, second_device());  // [0, 500) = 110
  add(executor, data, 500, 500, 20, 0);              // [500, 1000) = 120
  std::vector<int> seen;
  executor.host({read(data)}, [&seen, data]() mutable {
    seen.assign(data.host().begin(), data.host().end());
  });
  executor.wait();
  REQUIRE(seen.size() == static_cast<std::size_t>(n));
  check_range(seen, 0, 500, 110);
  check_range(seen, 500, 500, 120);
}

TEST_CASE("Executor.Dependencies.explicit_order") {
  if (!have_devices(1)) return;
  Buffer<int> gate(1);
  Buffer<int> data(256);
  std::atomic<bool> first_done{false};
  bool seen_first_done = false;
  Graph graph;
  // `first` waits for a paused task before it runs, so a kernel that did not
  // wait for `first`, and the host task reading that kernel's output, would
  // be ready during the pause: host tasks then run before `first` even with
  // a single host worker.
  graph.host({write(gate)}, [] { std::this_thread::sleep_for(pause); });
  const TaskId first = graph.host({read(gate)}, [&first_done] { first_done = true; });
  // `kernel` shares no data with `first`; only the explicit edge orders them.
  const TaskId kernel = graph.kernel(conformance, "add_to_range", {Extent(256)},
                                     {0, 256, 3, read_write(data)});
  const TaskId last = graph.host({read(data)}, [&] { seen_first_done = first_done; });
  CHECK(graph.dependencies(kernel).empty());
  graph.order(first, kernel);
  CHECK(depends_on(graph, kernel, first));
   CHECK(depends_on(graph, last, kernel));  // read after write

  // Run: the kernel, and so the host task reading its output, wait for `first`.
  Executor executor(runtime(), on_selected_devices());
  executor.run(graph);
  executor.wait();
  CHECK(seen_first_done);
  executor.synchronize(data);
  check_range(data.host(), 0, 256, 3);
}

}  // namespace alloy::test
