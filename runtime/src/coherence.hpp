// Device lanes and buffer coherence for the executor (internal to the runtime).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/buffer.hpp"

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
class Coherence {
 public:
  Coherence(const std::vector<Device*>& devices, std::vector<DeviceLanes>& lanes)
      : devices_(devices), lanes_(lanes) {}

  using Events = std::vector<std::shared_ptr<Event>>;

  /// The device's replica, made valid over the slice if the access reads it.
  DeviceBuffer& prepare_on_device(const Access& access, std::size_t device, const Events& producers,
                                  Events& waits);
  void written_on_device(const Access& access, std::size_t device);
  void prepare_on_host(const Access& access, const Events& producers, Events& waits);
  void written_on_host(const Access& access);
  /// Copies every byte back to host memory, waits, and frees the replicas
  /// of this executor's devices.
  void bring_home(BufferStorage& storage);

 private:
  BufferStorage::Replica& replica(BufferStorage& storage, std::size_t device);
  std::size_t index_of(const Device* device) const;
  /// Enqueues a device-to-host copy of `piece` from `source`'s replica.
  std::shared_ptr<Event> copy_to_host(BufferStorage& storage, std::size_t source, ByteRange piece,
                                      const Events& producers);

  const std::vector<Device*>& devices_;
  std::vector<DeviceLanes>& lanes_;
};

}  // namespace alloy::detail
