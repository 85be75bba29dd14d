// Device lanes and buffer coherence for the executor (internal to the runtime).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/buffer.hpp"
#include "residency.hpp"

namespace alloy::detail {

/// One device's in-order queues: compute lanes for kernels, one lane for
/// transfers into the device, copies and fills, one for transfers out.
class DeviceLanes {
 public:
  DeviceLanes(Device& device, unsigned compute_lanes);

  Queue& next_compute();
  Queue& copy_in() { return *copy_in_; }
  Queue& copy_out() { return *copy_out_; }

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

/// Plans the transfers that make a task's slices valid where it runs, and
/// records what a task's writes invalidate. Every transfer waits for the
/// task's producers and for pending transfers of the bytes it reads; the
/// events it returns are what the task's own command must wait for.
///
/// Also keeps each device's replicas within its memory: when a new replica
/// does not fit (under the executor's cap, or the device refuses the
/// allocation), the least recently used replicas the task does not need are
/// written back to host memory where only the device held their bytes, and
/// freed.
class Coherence {
 public:
  Coherence(const std::vector<Device*>& devices, std::vector<DeviceLanes>& lanes,
            std::vector<Residency>& residency)
      : devices_(devices), lanes_(lanes), residency_(residency) {}

  using Events = std::vector<std::shared_ptr<Event>>;

  /// A host-to-device transfer this object enqueued, for bandwidth estimates.
  struct Transfer {
    std::size_t device;
    std::size_t bytes;
    std::shared_ptr<Event> event;
  };

  /// Makes room on `device` for every buffer `accesses` touch, before the
  /// task's replicas are prepared; OutOfDeviceMemory if they cannot fit.
  /// `task_label` names the task in that error.
  void reserve(const std::vector<Access>& accesses, std::size_t device,
               const std::function<std::string()>& task_label);
  /// The device's replica, made valid over the slice if the access reads it.
  DeviceBuffer& prepare_on_device(const Access& access, std::size_t device, const Events& producers,
                                  Events& waits);
  /// Records the task's command as a user of its replicas and what it wrote.
  void used_on_device(const Access& access, std::size_t device, Queue& queue,
                      const std::shared_ptr<Event>& command);
  void prepare_on_host(const Access& access, const Events& producers, Events& waits);
  void written_on_host(const Access& access);
  /// Copies every byte back to host memory, waits, and frees the replicas
  /// of this executor's devices.
  void bring_home(BufferStorage& storage);

  /// Frees the replicas on this executor's devices of a buffer nobody can
  /// read any more, once the commands using them are done.
  void forget(BufferStorage& storage);

  /// Bytes the access would have to bring to `device` before a task there.
  std::size_t missing_bytes(const Access& access, std::size_t device) const;
  /// Transfers enqueued since the last call.
  std::vector<Transfer> take_transfers() { return std::exchange(transfers_, {}); }

 private:
  BufferStorage::Replica& replica(BufferStorage& storage, std::size_t device);
  std::size_t index_of(const Device* device) const;
  /// Enqueues a device-to-host copy of `piece` from `source`'s replica.
  std::shared_ptr<Event> copy_to_host(BufferStorage& storage, std::size_t source, ByteRange piece,
                                      const Events& producers);
  void add_fill(BufferStorage::Replica& target, ByteRange piece, Queue& queue,
                std::shared_ptr<Event> event);
  /// Frees the least recently used replica on `device` that `keep` does not
  /// hold; false if there is none.
  bool evict_one(std::size_t device, const std::vector<Access>& keep);
  void evict(BufferStorage& storage, std::size_t device);

  const std::vector<Device*>& devices_;
  std::vector<DeviceLanes>& lanes_;
  std::vector<Residency>& residency_;
  std::vector<Transfer> transfers_;
  std::uint64_t clock_ = 0;  // counts tasks: orders replicas by last use
  const std::vector<Access>* reserved_for_ = nullptr;  // the task being prepared
};

}  // namespace alloy::detail
