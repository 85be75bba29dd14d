// The clock a trace reads for host tasks: its ticks, put on steady_clock's
// scale, land where steady_clock was when they were read.
#include <chrono>
#include <thread>
#include <vector>

#include "support/test_devices.hpp"
#include "tracing/trace_clock.hpp"

namespace alloy::test {
namespace {

using detail::TraceClock;
using std::chrono::steady_clock;

/// A tick read between two steady_clock reads.
struct Reading {
  steady_clock::time_point before;
  TraceClock::Ticks ticks;
  steady_clock::time_point after;
};

/// Readings over `span`, some spinning and some after sleeps, with the
/// clock anchored as a recorder anchors it: due checks on every reading,
/// one anchor() before the ticks are put on steady_clock's scale.
std::vector<Reading> readings_over(TraceClock& clock, std::chrono::milliseconds span) {
  std::vector<Reading> readings;
  const auto end = steady_clock::now() + span;
  while (steady_clock::now() < end) {
    const auto before = steady_clock::now();
    const TraceClock::Ticks ticks = clock.now();
    const auto after = steady_clock::now();
    readings.push_back({before, ticks, after});
    clock.anchor_if_due(ticks);
    if (readings.size() % 64 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
  clock.anchor();
  return readings;
}

/// Every reading's ticks land within `slack` of the steady_clock reads
/// around them, and later ticks never land earlier.
void check_lands_in_place(const TraceClock& clock, const std::vector<Reading>& readings,
                          steady_clock::duration slack) {
  REQUIRE(readings.size() > 100);
  steady_clock::time_point previous{};
  std::size_t misplaced = 0;
  for (const Reading& reading : readings) {
    const steady_clock::time_point placed = clock.steady(reading.ticks);
    if (placed < reading.before - slack || placed > reading.after + slack) ++misplaced;
    CHECK(placed >= previous);
    previous = placed;
  }
  CHECK(misplaced == 0);
}

}  // namespace

TEST_CASE("Unit.TraceClock.the_counter_lands_its_ticks_where_steady_clock_was") {
  TraceClock clock(TraceClock::Source::counter);
  if (clock.source() != TraceClock::Source::counter) {
    skip("this machine's kernel does not keep time by the time-stamp counter (or it is not x86): "
         "traces read steady_clock here");
    return;
  }
  // 60 ms: several 10 ms anchors, so times are placed between anchors
  // other than the first and the last.
  const std::vector<Reading> readings = readings_over(clock, std::chrono::milliseconds(60));
  check_lands_in_place(clock, readings, std::chrono::microseconds(2));
}

TEST_CASE("Unit.TraceClock.steady_clock_ticks_are_its_own_time") {
  TraceClock clock(TraceClock::Source::steady_clock);
  CHECK(clock.source() == TraceClock::Source::steady_clock);
  const std::vector<Reading> readings = readings_over(clock, std::chrono::milliseconds(5));
  check_lands_in_place(clock, readings, steady_clock::duration::zero());
}

}  // namespace alloy::test
