// One executor's part in sharing its devices with other jobs (internal to
// the runtime): its slot in each device's coordination segment, and the
// bound on its background work in flight.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "alloy/backend/device.hpp"
#include "sharing/coordination_segment.hpp"

namespace alloy::detail {

/// How much a background executor may have in flight on a device now: at
/// most `commands` commands and `predicted` of predicted work, though a
/// lone command always may start.
struct BackgroundBound {
  std::size_t commands = 0;
  std::chrono::nanoseconds predicted{0};
};

/// Tells the other jobs on each device what this executor has in flight
/// there, and bounds a background executor's commands in flight while
/// critical work may come: one command while another job's critical
/// commands are pending on the device; while a critical job is there at
/// all (so that its next command waits behind little), two commands and an
/// adaptive budget of predicted work, which halves when critical work
/// turned out to be pending as one of the executor's commands ended (it may
/// have waited behind them) and grows by a slice time when the bound held
/// work back with none pending; no bound otherwise. Not thread-safe: the
/// executor calls it under its lock.
class DeviceSharing {
 public:
  static constexpr std::size_t while_critical_pending = 1;
  static constexpr std::size_t while_critical_present = 2;
  /// The budget while a critical job is present, in slice times: where it
  /// starts, and between which it moves.
  static constexpr int first_budget = 2;
  static constexpr int least_budget = 1;
  static constexpr int most_budget = 8;

  /// Joins each device's segment (ALLOY_SHARING_ACCESS says whose). A
  /// device whose segment cannot be joined (no shared memory, a full table)
  /// is used without coordination, saying why once.
  /// `shares`: the executor's memory share per device in bytes (0: none).
  /// `slice_time`: how long a background executor's slices run.
  DeviceSharing(const std::vector<Device*>& devices, PriorityClass priority_class,
                const std::vector<std::size_t>& shares, std::chrono::microseconds slice_time);

  PriorityClass priority_class() const { return priority_class_; }
  /// Whether the executor must tell of each command's start and end on a
  /// device: critical and background executors do, normal ones do not.
  bool counts_commands() const { return priority_class_ != PriorityClass::normal; }
  /// Work handed in to `device`, and its end: one command predicted to take
  /// `predicted` (0: unknown, counted as a slice time), or a launch in
  /// slices, which the other jobs see but the bound does not count (it
  /// holds critical work up by one slice at most). `held_back`: the bound
  /// held some of the executor's work back meanwhile.
  struct InFlight {
    std::chrono::nanoseconds predicted{0};
    bool in_slices = false;
  };
  void started(std::size_t device, InFlight work);
  void completed(std::size_t device, InFlight work, bool held_back);
  /// Whether a command predicted to take `predicted` may go on `device` now.
  bool may_start(std::size_t device, std::chrono::nanoseconds predicted) const;
  /// The bound on a background executor's work in flight on `device` now;
  /// nullopt: no bound (also for other classes).
  std::optional<BackgroundBound> bound(std::size_t device) const;
  /// Commands the other jobs on `device` have in flight, as critical and
  /// background jobs count them.
  std::uint32_t others_in_flight(std::size_t device) const;
  /// Whether long kernels of this executor run in slices: a background
  /// executor's do, also before a critical job comes, since what the
  /// executor has handed in by then stays queued ahead of that job's work.
  bool slices_kernels() const { return priority_class_ == PriorityClass::background; }
  std::chrono::microseconds slice_time() const { return slice_time_; }
  /// Tells the other jobs what the executor's replicas take on `device`;
  /// called per task, it writes to the shared segment only on a change.
  void memory_in_use(std::size_t device, std::size_t bytes);
  /// The most the executor's replicas took on `device`, and its share there (0: none).
  std::size_t memory_peak(std::size_t device) const { return memory_peak_[device]; }
  std::size_t memory_share(std::size_t device) const { return shares_[device]; }
  /// The jobs on `device` (this one first); empty where it has no segment.
  std::vector<JobState> jobs(std::size_t device) const;

  /// The segment key of `device`: ALLOY_SHARING_NAMESPACE (if set), its
  /// fingerprint and its index, since two identical devices share a
  /// fingerprint.
  static std::string key_of(const Device& device);

 private:
  PriorityClass priority_class_;
  std::chrono::microseconds slice_time_;
  std::vector<std::unique_ptr<CoordinationSegment>> segments_;  ///< null: uncoordinated
  /// Counted as a slice time where the prediction is unknown.
  std::chrono::nanoseconds counted(std::chrono::nanoseconds predicted) const;

  std::vector<std::size_t> in_flight_;
  std::vector<std::chrono::nanoseconds> predicted_in_flight_;
  std::vector<std::chrono::nanoseconds> present_budget_;  ///< the adaptive budget per device
  std::vector<std::size_t> shares_;
  std::vector<std::size_t> told_in_use_;  ///< the memory in use last written per device
  std::vector<std::size_t> memory_peak_;
};

}  // namespace alloy::detail
