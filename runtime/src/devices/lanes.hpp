// One device's in-order queues as the executor uses them (internal to the
// runtime).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/run.hpp"

namespace alloy::detail {

/// A host-to-device transfer enqueued with timing, for bandwidth estimates.
struct TimedTransfer {
  std::size_t device;
  std::size_t bytes;
  std::shared_ptr<Event> event;
};

/// Compute lanes for kernels, one lane for transfers into the device, copies
/// and fills, one for transfers out: so that the three overlap. All of an
/// executor's lanes share its class's priority: its fills and copies rank
/// with its kernels where a backend ranks them. Their
/// commands are untimed unless the executor turns timing on for one.
class DeviceLanes {
 public:
  /// Every lane a queue of `priority` (where the device ranks queues).
  DeviceLanes(Device& device, unsigned compute_lanes, QueuePriority priority);

  Queue& next_compute();
  Queue& compute(std::size_t lane) { return *compute_.at(lane); }
  Queue& copy_in() { return *copy_in_; }
  Queue& copy_out() { return *copy_out_; }
  /// The queue a command for `lane` goes on: compute lanes in turn.
  Queue& queue(Lane lane) {
    return lane == Lane::compute ? next_compute() : lane == Lane::copy_out ? copy_out() : copy_in();
  }

  /// Commands submitted and not yet seen complete, for least-loaded placement.
  void track(const std::shared_ptr<Event>& event);
  std::size_t in_flight();
  /// Every tracked command is known complete.
  void all_complete() { in_flight_.clear(); }

 private:
  std::vector<std::unique_ptr<Queue>> compute_;
  std::size_t next_compute_ = 0;
  std::unique_ptr<Queue> copy_in_;
  std::unique_ptr<Queue> copy_out_;
  std::deque<std::shared_ptr<Event>> in_flight_;
};

}  // namespace alloy::detail
