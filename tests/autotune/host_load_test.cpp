// Reading how busy the machine is with other processes: /proc's text, and
// the share of CPU time between two readings.
#include <doctest/doctest.h>

#include "alloy/autotune/host_load.hpp"

namespace alloy::autotune {

TEST_CASE("Autotune.HostLoad.reads_the_machine_and_this_process_from_proc") {
  const char* machine = "cpu  100 5 50 800 40 3 2 0 7 0\ncpu0 50 2 25 400 20 1 1 0 3 0\n";
  // A process name with a space and a parenthesis; utime 30, stime 12.
  const char* self = "4242 (my (odd) tool) R 1 4242 4242 0 -1 4194304 900 0 0 0 30 12 0 0 20 0 9 0 77";
  const std::optional<CpuTimes> times = parse_cpu_times(machine, self);
  REQUIRE(times);
  CHECK(times->total == 100 + 5 + 50 + 800 + 40 + 3 + 2 + 0);  // guest time is inside user
  CHECK(times->idle == 800 + 40);
  CHECK(times->own == 30 + 12);
  CHECK_FALSE(parse_cpu_times("intr 1 2 3\n", self));
  CHECK_FALSE(parse_cpu_times("cpu  1 2\n", self));
  CHECK_FALSE(parse_cpu_times(machine, "4242 my tool R 1"));
  CHECK_FALSE(parse_cpu_times(machine, "4242 (tool) R 1 2 3"));
  CHECK(read_cpu_times());  // Linux has /proc
}

TEST_CASE("Autotune.HostLoad.others_share_leaves_out_idle_time_and_this_process") {
  const CpuTimes before{1000, 600, 100};
  // 1000 ticks later: 200 idle, this process 300, others the other 500.
  CHECK(others_share(before, {2000, 800, 400}) == doctest::Approx(0.5));
  CHECK(others_share(before, {2000, 1600, 100}) == 0.0);  // all idle
  CHECK(others_share(before, {2000, 600, 100}) == 1.0);   // others kept every core
  CHECK(others_share(before, before) == 0.0);             // no time passed
}

}  // namespace alloy::autotune
