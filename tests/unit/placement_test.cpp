// Placement by earliest finish time before anything is measured: the times
// tuning profiles recorded stand in for measurements.
#include "executor/placement.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

detail::Task kernel_task(std::uint64_t key) {
  auto source = std::make_shared<const ProgramSource>(ProgramSource{"k.cl", "KERNEL void k() {}", ""});
  return {detail::KernelWork{detail::FixedKernel{source, LaunchRange(Extent(1024))}, "k", {}, key}, {}, {}};
}

// Places `tasks` launches of one kernel on two devices, deterministically,
// with the tuned times given per device; returns how many each got.
std::vector<int> place(int tasks, std::vector<std::optional<double>> tuned) {
  ExecutorOptions options;
  options.policy = SchedulingPolicy::earliest_finish_time;
  options.deterministic = true;
  detail::CompletionLane completions;
  detail::Placement placement(options, 2, completions);
  if (!tuned.empty()) {
    placement.set_tuned_times([&](const detail::Task&, std::size_t device) { return tuned[device]; });
  }
  const detail::Task task = kernel_task(7);
  std::vector<int> counts(2, 0);
  const std::vector<detail::DeviceLoad> idle(2);
  for (int t = 0; t < tasks; ++t) ++counts[placement.choose(task, SchedulingPolicy::earliest_finish_time, idle)];
  return counts;
}

}  // namespace

TEST_CASE("Unit.Placement.tuned_times_place_the_first_run") {
  // 1 ms here, 3 ms there: finishing first means three tasks here for each
  // one there (ties go to the first device).
  CHECK(place(8, {1e-3, 3e-3}) == std::vector<int>{6, 2});
  CHECK(place(8, {3e-3, 1e-3}) == std::vector<int>{2, 6});
}

TEST_CASE("Unit.Placement.untuned_device_is_assumed_average") {
  // Only the first device has a profile: the second is taken to be as fast,
  // so it gets its share and, with it, measurements of its own.
  CHECK(place(8, {1e-3, std::nullopt}) == std::vector<int>{4, 4});
  // Neither has one: the work is spread.
  CHECK(place(8, {std::nullopt, std::nullopt}) == std::vector<int>{4, 4});
}

}  // namespace alloy::test
