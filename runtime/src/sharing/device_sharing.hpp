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

/// Tells the other jobs on each device what this executor has pending
/// there, and bounds a background executor's commands in flight while
/// critical work may come: at most `while_critical_pending` when another
/// job's critical commands are pending on the device, at most
/// `while_critical_present` when a critical job is there at all (so that
/// its next command waits behind little), no bound otherwise. Not
/// thread-safe: the executor calls it under its lock.
class DeviceSharing {
 public:
  static constexpr std::size_t while_critical_pending = 1;
  static constexpr std::size_t while_critical_present = 2;

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
  void started(std::size_t device);
  void completed(std::size_t device);
  /// Whether one more command may go on `device` now.
  bool may_start(std::size_t device) const;
  /// The most commands a background executor may have in flight on
  /// `device` now; nullopt: no bound (also for other classes).
  std::optional<std::size_t> bound(std::size_t device) const;
  /// Whether long kernels of this executor run in slices: a background
  /// executor's do, also before a critical job comes, since what the
  /// executor has handed in by then stays queued ahead of that job's work.
  bool slices_kernels() const { return priority_class_ == PriorityClass::background; }
  std::chrono::microseconds slice_time() const { return slice_time_; }
  /// Tells the other jobs what the executor's replicas take on `device`;
  /// called per task, it writes to the shared segment only on a change.
  void memory_in_use(std::size_t device, std::size_t bytes);
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
  std::vector<std::size_t> in_flight_;
  std::vector<std::size_t> shares_;
  std::vector<std::size_t> told_in_use_;  ///< the memory in use last written per device
};

}  // namespace alloy::detail
