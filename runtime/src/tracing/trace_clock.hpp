// The clock a trace reads for host tasks, twice per task (internal to the
// runtime).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ALLOY_TRACE_CLOCK_HAS_COUNTER 1
#endif

namespace alloy::detail {

/// Reads the CPU's time-stamp counter where the kernel keeps its own time by
/// it (x86 with clock source "tsc": the kernel checked it runs at one rate
/// and in step on every core), else steady_clock's nanoseconds. The counter
/// costs 8 ns a read where steady_clock costs 19 (measured on PoCL's
/// `pthread-skylake-avx512` machine), and a traced host task reads the
/// clock twice.
///
/// Ticks are put on steady_clock's scale when a trace is read, through
/// anchors: (ticks, steady time) pairs read together when the clock is made,
/// whenever anchor_if_due() finds the last one 10 ms old, and by anchor().
/// A time between two anchors is interpolated between them, so the kernel's
/// adjustments to steady_clock's rate move it no more than they move
/// steady_clock over 10 ms.
///
/// Not thread-safe, but for now(): its owner serializes the rest.
class TraceClock {
 public:
  using Ticks = std::uint64_t;
  enum class Source { counter, steady_clock };

  /// The counter where the kernel keeps time by it, else steady_clock.
  TraceClock();
  /// `source`, when the machine has it: tests ask for each.
  explicit TraceClock(Source source);

  Source source() const { return counter_ ? Source::counter : Source::steady_clock; }

  Ticks now() const {
#ifdef ALLOY_TRACE_CLOCK_HAS_COUNTER
    if (counter_) return __rdtsc();
#endif
    return static_cast<Ticks>(std::chrono::steady_clock::now().time_since_epoch().count());
  }

  /// Adds an anchor when the last one is 10 ms older than `ticks`, a time
  /// just read: cheap enough to call for every record.
  void anchor_if_due(Ticks ticks) {
    if (counter_ && ticks - anchors_.back().ticks >= anchor_interval_) anchor();
  }
  /// Adds an anchor: before times recorded so far are read, so that every
  /// one of them lies between two.
  void anchor();

  /// `ticks`, read by now() on this clock, on steady_clock's scale.
  std::chrono::steady_clock::time_point steady(Ticks ticks) const;

 private:
  struct Anchor {
    Ticks ticks;
    std::chrono::steady_clock::time_point steady;
  };

  bool counter_ = false;
  /// Ticks in about 10 ms, from the rate between the anchors; a guess until
  /// there are two.
  Ticks anchor_interval_ = Ticks{1} << 25;
  std::vector<Anchor> anchors_;
};

}  // namespace alloy::detail
