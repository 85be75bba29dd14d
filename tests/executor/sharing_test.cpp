// Sharing a device between executors: each executor's priority class, where
// it comes from, and the order it gives kernels that wait for one device.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "alloy/emulated_kernels.hpp"
#include "alloy/utilization_report.hpp"
#include "embedded/conformance_source.hpp"
#include "embedded/slices_source.hpp"
#include "sharing/device_sharing.hpp"
#include "support/scoped_environment.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

using namespace std::chrono_literals;
using detail::DeviceSharing;

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};

ExecutorOptions of_class(std::optional<PriorityClass> priority_class, unsigned compute_lanes = 1) {
  ExecutorOptions options = on_first_device();
  options.priority_class = priority_class;
  options.compute_lanes = compute_lanes;
  return options;
}

/// Other test processes run beside this one on the same devices, some with
/// critical executors: each case here coordinates only with itself.
std::string own_namespace() { return "sharing-test-" + std::to_string(::getpid()); }

/// Adds 3 to 64 ints on `executor`'s device and checks the sums.
void check_computes(Executor& executor) {
  Buffer<int> data(std::vector<int>(64, 1));
  executor.kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 3, read_write(data)});
  executor.synchronize(data);
  for (int value : data.host()) REQUIRE(value == 4);
}

}  // namespace

TEST_CASE("Executor.Sharing.the_class_comes_from_the_options_then_the_environment") {
  if (!have_devices(1)) return;
  const ScopedEnvironment apart("ALLOY_SHARING_NAMESPACE", own_namespace().c_str());
  ScopedEnvironment unset("ALLOY_PRIORITY_CLASS", "");
  {
    Executor executor(runtime(), of_class(std::nullopt));
    CHECK(executor.priority_class() == PriorityClass::normal);
    check_computes(executor);
  }
  {
    ScopedEnvironment background("ALLOY_PRIORITY_CLASS", "Background");
    Executor from_environment(runtime(), of_class(std::nullopt));
    CHECK(from_environment.priority_class() == PriorityClass::background);
    check_computes(from_environment);
    Executor from_options(runtime(), of_class(PriorityClass::critical));
    CHECK(from_options.priority_class() == PriorityClass::critical);
    check_computes(from_options);
  }
  ScopedEnvironment misspelt("ALLOY_PRIORITY_CLASS", "urgent");
  try {
    Executor refused(runtime(), of_class(std::nullopt));
    FAIL("an unknown class was taken");
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    CHECK(message.find("ALLOY_PRIORITY_CLASS=\"urgent\"") != std::string::npos);
    CHECK(message.find("critical, normal or background") != std::string::npos);
  }
  CHECK(parse_priority_class("CRITICAL") == PriorityClass::critical);
  CHECK_FALSE(parse_priority_class("").has_value());
}

TEST_CASE("Executor.Sharing.a_critical_kernel_starts_before_background_kernels_waiting_for_the_device") {
  if (!have_devices(1)) return;
  const ScopedEnvironment apart("ALLOY_SHARING_NAMESPACE", own_namespace().c_str());
  Device& device = *selected_devices()[0];
  if (device.info().emulation.empty() || !device.ranks_queues()) {
    skip(device.label() +
         ": the order of kernels that wait for one device is checked on emulated devices, whose kernel "
         "times the test sets");
    return;
  }
  // A background executor with three lanes hands in three 60 ms kernels:
  // the first holds the device, two wait. Then a critical executor's
  // kernel comes. With classes it runs second; without, fourth.
  std::mutex mutex;
  std::vector<int> order;
  emulation::KernelModel tagged;
  tagged.run = [&](const emulation::KernelLaunch& launch) {
    std::lock_guard lock(mutex);
    order.push_back(launch.scalar<int>(0));
  };
  tagged.seconds = [](const emulation::KernelLaunch&) { return 0.06; };
  emulation::define_kernel("tagged", tagged);
  const ProgramSource source{"tagged.cl", "KERNEL void tagged(const int tag, GLOBAL int* out) { out[0] = tag; }",
                             ""};
  for (const bool classes : {false, true}) {
    CAPTURE(classes);
    Executor background(runtime(), of_class(classes ? PriorityClass::background : PriorityClass::normal, 3));
    Executor critical(runtime(), of_class(classes ? PriorityClass::critical : PriorityClass::normal));
    std::vector<Buffer<int>> outs;
    for (int tag = 0; tag < 6; ++tag) outs.emplace_back(1);
    // Built once on each, so that nothing but the device delays the kernels below.
    background.kernel(source, "tagged", {Extent(1)}, {-1, write(outs[4])});
    critical.kernel(source, "tagged", {Extent(1)}, {-1, write(outs[5])});
    background.wait();
    critical.wait();
    order.clear();
    for (int tag = 0; tag < 3; ++tag) {
      background.kernel(source, "tagged", {Extent(1)}, {tag, write(outs[tag])});
      std::this_thread::sleep_for(10ms);
    }
    critical.kernel(source, "tagged", {Extent(1)}, {3, write(outs[3])}).wait();
    background.wait();
    std::lock_guard lock(mutex);
    CHECK(order == (classes ? std::vector<int>{0, 3, 1, 2} : std::vector<int>{0, 1, 2, 3}));
  }
  emulation::define_kernel("tagged", emulation::KernelModel{});
}

TEST_CASE("Executor.Sharing.background_work_in_flight_is_bounded_while_a_critical_job_shares_the_device") {
  if (!have_devices(1)) return;
  const ScopedEnvironment apart("ALLOY_SHARING_NAMESPACE", own_namespace().c_str());
  // Eight independent ~50 ms kernels of a background executor with four
  // lanes: alone on the device all eight start at once; beside a critical
  // executor at most two are in flight, and while the critical one's kernel
  // is pending, one. Tasks start as they are handed in, so
  // tasks_per_device() right after the calls counts what went to the device.
  Device& device = *selected_devices()[0];
  const int iterations = computes_on_cpu(device) ? 50'000'000 : 200'000'000;
  for (const bool beside_critical : {false, true}) {
    CAPTURE(beside_critical);
    ExecutorOptions background_options = of_class(PriorityClass::background, 4);
    background_options.trace = true;
    // A budget of predicted work (two slice times) far over what the
    // warm-up predicts: here the bound in commands is checked.
    background_options.slice_time = 50ms;
    Executor background(runtime(), background_options);
    std::optional<Executor> critical;
    if (beside_critical) {
      ExecutorOptions traced = of_class(PriorityClass::critical);
      traced.trace = true;
      critical.emplace(runtime(), traced);
    }
    std::vector<Buffer<float>> outs;
    for (int k = 0; k < 8; ++k) outs.emplace_back(1);
    // Built before counting, so that no compile holds a task back.
    background.kernel(conformance, "spin", {Extent(1)}, {1, write(outs[0])});
    background.wait();
    const std::size_t before = background.tasks_per_device()[0];
    for (int k = 0; k < 8; ++k) background.kernel(conformance, "spin", {Extent(1)}, {iterations, write(outs[k])});
    const std::size_t handed_in = background.tasks_per_device()[0] - before;
    if (!beside_critical) {
      CHECK(handed_in == 8);
    } else {
      CHECK(handed_in == 2);
      Buffer<int> data(std::vector<int>(64, 1));
      critical->kernel(conformance, "add_to_range", {Extent(64)}, {0, 64, 3, read_write(data)});
      critical->synchronize(data);
      CHECK(data.host()[63] == 4);
      // Two were in flight when the critical kernel came; one more may
      // have started after both ended and before it completed.
      CHECK(background.tasks_per_device()[0] - before <= 4);
      // Its trace says it was handed in behind the background's kernels.
      const Trace seen_by_critical = critical->trace();
      const auto kernel = std::find_if(seen_by_critical.slices.begin(), seen_by_critical.slices.end(),
                                       [](const TraceSlice& slice) { return slice.kernel == "add_to_range"; });
      REQUIRE(kernel != seen_by_critical.slices.end());
      CHECK(kernel->others_in_flight >= 1);
    }
    background.wait();
    CHECK(background.tasks_per_device()[0] - before == 8);
    // Each of the six tasks over the bound is held back at least once, on
    // the trace's "held back" lane with the bound that held it.
    const Trace trace = background.trace();
    std::set<std::uint64_t> held;
    for (const TraceSlice& slice : trace.slices) {
      if (slice.kind != TraceKind::held_back) continue;
      held.insert(slice.task.value());
      CHECK(slice.lane == "held back");
      CHECK((slice.bound_commands == DeviceSharing::while_critical_pending ||
             slice.bound_commands == DeviceSharing::while_critical_present));
      CHECK(slice.bound_ns > 0);
    }
    CHECK(held.size() == (beside_critical ? 6u : 0u));
    CHECK(analyze(trace).devices[0].holds >= held.size());
  }
}

TEST_CASE("Executor.Sharing.the_background_bound_counts_commands_and_predicted_work_and_adapts") {
  if (!have_devices(1)) return;
  const ScopedEnvironment apart("ALLOY_SHARING_NAMESPACE", own_namespace().c_str());
  Device& device = *selected_devices()[0];
  DeviceSharing background({&device}, PriorityClass::background, {0}, 100us);
  const auto command = [](std::chrono::microseconds predicted) { return DeviceSharing::InFlight{predicted, false}; };
  // Alone on the device: no bound.
  CHECK_FALSE(background.bound(0));
  background.started(0, command(5000us));
  background.started(0, command(5000us));
  CHECK(background.may_start(0, 5000us));
  background.completed(0, command(5000us), false);
  background.completed(0, command(5000us), false);
  {
    detail::CoordinationSegment critical(DeviceSharing::key_of(device), PriorityClass::critical,
                                         detail::SegmentAccess::user);
    // A critical job present, nothing of it pending: two commands and two
    // slices of predicted work, though a lone command always may start.
    REQUIRE(background.bound(0));
    CHECK(background.bound(0)->commands == 2);
    CHECK(background.bound(0)->predicted == 200us);
    CHECK(background.may_start(0, 1000us));
    background.started(0, command(80us));
    CHECK(background.may_start(0, 120us));
    CHECK_FALSE(background.may_start(0, 121us));
    CHECK(background.may_start(0, 0us));  // unknown: counted as a slice
    background.started(0, command(100us));
    CHECK_FALSE(background.may_start(0, 1us));  // two commands
    CHECK(critical.in_flight_elsewhere() == 2);
    // The bound held work back and no critical work was pending as a
    // command ended: one slice more.
    background.completed(0, command(100us), true);
    CHECK(background.bound(0)->predicted == 300us);
    // Critical work pending: one command in flight.
    critical.add_in_flight(1);
    CHECK(background.bound(0)->commands == 1);
    CHECK_FALSE(background.may_start(0, 1us));
    CHECK(background.others_in_flight(0) == 1);
    // Still pending as a command ends: it may have waited behind it, so the
    // budget halves, down to one slice.
    background.completed(0, command(80us), false);
    CHECK(background.may_start(0, 1000us));
    critical.add_in_flight(-1);
    CHECK(background.bound(0)->predicted == 150us);
    for (int round = 0; round < 3; ++round) {
      background.started(0, command(10us));
      critical.add_in_flight(1);
      background.completed(0, command(10us), false);
      critical.add_in_flight(-1);
    }
    CHECK(background.bound(0)->predicted == 100us);
    // Held back with nothing pending, again and again: up to eight slices.
    for (int round = 0; round < 20; ++round) {
      background.started(0, command(10us));
      background.completed(0, command(10us), true);
    }
    CHECK(background.bound(0)->predicted == 800us);
    // A launch in slices: the other jobs see it, the bound does not count it.
    background.started(0, command(50us));
    background.started(0, DeviceSharing::InFlight{50'000us, true});
    CHECK(critical.in_flight_elsewhere() == 2);
    CHECK(background.may_start(0, 50us));
    background.completed(0, DeviceSharing::InFlight{50'000us, true}, false);
    background.completed(0, command(50us), false);
    CHECK(critical.in_flight_elsewhere() == 0);
  }
  // The critical job gone: no bound again.
  CHECK_FALSE(background.bound(0));
  // The most its replicas took, whatever they take now.
  background.memory_in_use(0, 4096);
  background.memory_in_use(0, 1024);
  CHECK(background.memory_peak(0) == 4096);
}

TEST_CASE("Executor.Sharing.a_memory_share_caps_the_executors_replicas_and_the_other_jobs_see_it") {
  if (!have_devices(1)) return;
  const ScopedEnvironment apart("ALLOY_SHARING_NAMESPACE", own_namespace().c_str());
  // Six buffers of 64 KiB, each added to by its own kernel, under a share
  // of three: the executor evicts its own replicas to stay within it, every
  // sum is still exact, and another executor on the device sees the use
  // and the share.
  constexpr std::size_t elements = 16 * 1024;
  constexpr std::size_t share = 3 * elements * sizeof(int);
  ExecutorOptions options = of_class(PriorityClass::background);
  options.memory_share = MemoryShare{0, share};
  Executor shared(runtime(), options);
  Executor other(runtime(), of_class(PriorityClass::critical));
  std::vector<Buffer<int>> buffers;
  for (int b = 0; b < 6; ++b) buffers.emplace_back(std::vector<int>(elements, b));
  for (int round = 0; round < 2; ++round) {
    for (Buffer<int>& buffer : buffers) {
      shared.kernel(conformance, "add_to_range", {Extent(elements)},
                    {0, static_cast<int>(elements), 10, read_write(buffer)});
    }
  }
  shared.wait();
  const std::vector<DeviceJob> seen = other.jobs_on(0);
  const auto job = std::find_if(seen.begin(), seen.end(), [](const DeviceJob& j) {
    return j.priority_class == PriorityClass::background && j.memory_share == share;
  });
  REQUIRE(job != seen.end());
  CHECK(job->process == seen.front().process);  // one process
  CHECK(job->memory_in_use > 0);
  CHECK(job->memory_in_use <= share);
  CHECK(shared.jobs_on(0).front().memory_share == share);
  for (int b = 0; b < 6; ++b) {
    shared.synchronize(buffers[static_cast<std::size_t>(b)]);
    for (int value : buffers[static_cast<std::size_t>(b)].host()) REQUIRE(value == b + 20);
  }
  // A fraction comes to that part of the device's memory.
  ExecutorOptions half = of_class(std::nullopt);
  half.memory_share = MemoryShare{0.5, 0};
  Executor halved(runtime(), half);
  CHECK(halved.jobs_on(0).front().memory_share ==
        static_cast<std::size_t>(0.5 * static_cast<double>(selected_devices()[0]->info().global_memory_bytes)));
  half.memory_share = MemoryShare{1.5, 0};
  CHECK_THROWS_AS(Executor(runtime(), half), InvalidArgument);
  CHECK_THROWS_AS(other.jobs_on(1), InvalidArgument);
}

TEST_CASE("Executor.Sharing.a_background_executors_long_kernels_run_in_slices_and_compute_what_whole_ones_do") {
  if (!have_devices(1)) return;
  const ScopedEnvironment apart("ALLOY_SHARING_NAMESPACE", own_namespace().c_str());
  // mark_items multiplies what an item held by 31 before adding its ids'
  // word: after two launches an item holds 32 times the word only if each
  // launch wrote it once. The first launch runs whole and is timed; with a
  // slice time of 1 us the second is long enough to slice.
  const ProgramSource slices{"slices.cl", std::string(alloy_kernels::slices_source), ""};
  // 512 x 4 groups: enough along x for slices that each fill 132 compute units.
  const LaunchRange range(Extent(4096, 16), Extent(8, 4));
  const auto width = static_cast<std::uint32_t>(range.global[0]);
  const auto height = static_cast<std::uint32_t>(range.global[1]);
  for (const PriorityClass priority_class : {PriorityClass::normal, PriorityClass::background}) {
    const std::string class_name = to_string(priority_class);
    CAPTURE(class_name);
    ExecutorOptions options = of_class(priority_class);
    options.trace = true;
    options.slice_time = 1us;
    Executor executor(runtime(), options);
    Buffer<std::uint32_t> out(range.global.count());
    for (int launch = 0; launch < 2; ++launch) {
      executor.kernel(slices, "mark_items", range, {read_write(out), width, height});
      executor.wait();  // the first launch's time is known before the second starts
    }
    executor.synchronize(out);
    for (std::size_t y = 0; y < range.global[1]; ++y) {
      for (std::size_t x = 0; x < range.global[0]; ++x) {
        const auto word = static_cast<std::uint32_t>(x / 8 * 7919u + y / 4 * 104729u + x % 8 * 3u + y % 4 * 5u) + 1u;
        REQUIRE(out.host()[y * range.global[0] + x] == 32u * word);
      }
    }
    const Trace trace = executor.trace();
    std::set<std::uint32_t> parts;
    std::uint64_t groups = 0;
    std::uint32_t count = 0;
    for (const TraceSlice& slice : trace.slices) {
      if (slice.kind != TraceKind::kernel || slice.kernel_slices == 0) continue;
      CHECK(slice.name.find(", slice " + std::to_string(slice.kernel_slice) + " of ") != std::string::npos);
      count = slice.kernel_slices;
      parts.insert(slice.kernel_slice);
      groups += slice.work_groups;
    }
    if (priority_class == PriorityClass::normal) {
      CHECK(parts.empty());  // only background executors slice
    } else {
      REQUIRE(count >= 2);
      CHECK(parts.size() == count);  // each slice once, numbered from 1
      CHECK(*parts.begin() == 1);
      CHECK(groups == 512 * 4);
    }
  }
}

}  // namespace alloy::test
