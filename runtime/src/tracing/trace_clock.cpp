// Reading the time-stamp counter, and putting its ticks on steady_clock's
// scale.
#include "trace_clock.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

namespace alloy::detail {
namespace {

/// Whether the kernel keeps its own time by the time-stamp counter: it
/// checks at boot, and again while it runs, that the counter ticks at one
/// rate through sleep states and in step across cores, and switches to
/// another clock source when it does not.
bool kernel_keeps_time_by_counter() {
#ifdef ALLOY_TRACE_CLOCK_HAS_COUNTER
  static const bool keeps = [] {
    std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string name;
    return static_cast<bool>(source >> name) && name == "tsc";
  }();
  return keeps;
#else
  return false;
#endif
}

constexpr auto anchor_spacing = std::chrono::milliseconds(10);

}  // namespace

TraceClock::TraceClock() : TraceClock(Source::counter) {}

TraceClock::TraceClock(Source source) : counter_(source == Source::counter && kernel_keeps_time_by_counter()) {
  anchor();
}

void TraceClock::anchor() {
  if (!counter_) return;
  // The counter read between two steady_clock reads and placed at their
  // middle; of a few tries the closest pair, as the thread may be
  // preempted between the reads.
  Anchor closest{};
  auto widest = std::chrono::steady_clock::duration::max();
  for (int tries = 0; tries < 4; ++tries) {
    const auto before = std::chrono::steady_clock::now();
    const Ticks ticks = now();
    const auto after = std::chrono::steady_clock::now();
    if (after - before < widest) {
      widest = after - before;
      closest = {ticks, before + (after - before) / 2};
    }
  }
  anchors_.push_back(closest);
  const Ticks ticks = closest.ticks;
  if (anchors_.size() < 2) return;
  const Anchor& earlier = anchors_[anchors_.size() - 2];
  const auto elapsed = anchors_.back().steady - earlier.steady;
  if (elapsed < std::chrono::milliseconds(1)) return;  // too short to give the rate
  const double ticks_per_ns = static_cast<double>(ticks - earlier.ticks) / static_cast<double>(elapsed.count());
  anchor_interval_ = static_cast<Ticks>(
      ticks_per_ns * static_cast<double>(std::chrono::nanoseconds(anchor_spacing).count()));
}

std::chrono::steady_clock::time_point TraceClock::steady(Ticks ticks) const {
  if (!counter_) return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ticks));
  if (anchors_.size() < 2) return anchors_.front().steady;  // no rate yet: anchor() first
  // Between the last anchor at or before it and the next; the first or
  // last two anchors' rate outside them.
  const auto next = std::upper_bound(anchors_.begin(), anchors_.end(), ticks,
                                     [](Ticks value, const Anchor& anchor) { return value < anchor.ticks; });
  const std::size_t after = std::clamp<std::size_t>(static_cast<std::size_t>(next - anchors_.begin()), 1,
                                                    anchors_.size() - 1);
  const Anchor& from = anchors_[after - 1];
  const Anchor& to = anchors_[after];
  const double ns_per_tick =
      static_cast<double>((to.steady - from.steady).count()) / static_cast<double>(to.ticks - from.ticks);
  const auto since = static_cast<double>(static_cast<std::int64_t>(ticks - from.ticks)) * ns_per_tick;
  return from.steady + std::chrono::nanoseconds(std::llround(since));
}

}  // namespace alloy::detail
