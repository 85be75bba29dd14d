// Where each byte of a buffer is valid, and the copies that make it valid
// where a task runs (internal to the runtime).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/buffer.hpp"
#include "buffer_state.hpp"
#include "devices/lanes.hpp"

namespace alloy::detail {

/// Plans the transfers that make a task's slices valid where it runs, and
/// records what a task's writes invalidate. Every transfer waits for the
/// task's producers and for pending transfers of the bytes it reads; the
/// events it returns are what the task's own command must wait for. Bytes
/// come from the nearest valid copy: a device sharing memory with the
/// target, then host memory, then another device through host memory.
/// Replicas exist already (Residency makes them).
class Coherence {
 public:
  Coherence(const std::vector<Device*>& devices, std::vector<DeviceLanes>& lanes)
      : devices_(devices), lanes_(lanes) {}

  using Events = std::vector<std::shared_ptr<Event>>;

  /// The device's replica, made valid over the slice if the access reads it.
  DeviceBuffer& prepare_on_device(const Access& access, std::size_t device, const Events& producers,
                                  Events& waits);
  /// Records the task's command as a user of its replicas and what it wrote.
  void used_on_device(const Access& access, std::size_t device, Queue& queue,
                      const std::shared_ptr<Event>& command);
  /// Records that `device`'s replica now holds the slice's bytes and no
  /// other copy does: a task's command wrote them, or a host thread did (a
  /// direct file read, which has no command to record as a use).
  void written_on_device(const Access& access, std::size_t device);
  /// Records a transfer into borrowed host memory: readers there wait for it.
  void landed_on_host(const Access& access, std::shared_ptr<Event> transfer);
  void prepare_on_host(const Access& access, const Events& producers, Events& waits);
  void written_on_host(const Access& access);
  /// Copies home the bytes only `device`'s replica holds, after every
  /// command that writes them; the events of those copies.
  Events write_back(BufferStorage& storage, std::size_t device);
  /// Makes the host copy of every byte valid, and waits for it.
  void bring_home(BufferStorage& storage);

  /// Bytes the access would have to bring to `device` before a task there.
  std::size_t missing_bytes(const Access& access, std::size_t device) const;
  /// Host-to-device transfers enqueued since the last call while recording
  /// them (for the performance model).
  void record_transfers(bool on) { recording_ = on; }
  std::vector<TimedTransfer> take_transfers() { return std::exchange(transfers_, {}); }

 private:
  /// Where missing bytes can come from.
  struct Source {
    enum class Route { peer, host, through_host } route;
    std::size_t device = 0;  ///< for peer and through_host
  };
  /// Sources for `device`'s replica (or the host's copy, for `host`), nearest first.
  std::vector<Source> sources_for(const BufferStorage& storage, std::optional<std::size_t> device) const;
  /// Removes from `remaining` what the sources hold, nearest first, calling
  /// `copy(source, piece)` for each piece; Error if bytes remain.
  void restore(BufferStorage& storage, std::vector<ByteRange>& remaining,
               const std::vector<Source>& sources,
               const std::function<void(const Source&, ByteRange)>& copy);
  std::size_t index_of(const Device* device) const;
  /// Enqueues a device-to-host copy of `piece` from `source`'s replica.
  std::shared_ptr<Event> copy_to_host(BufferStorage& storage, std::size_t source, ByteRange piece,
                                      const Events& producers);

  const std::vector<Device*>& devices_;
  std::vector<DeviceLanes>& lanes_;
  bool recording_ = false;
  std::vector<TimedTransfer> transfers_;
};

}  // namespace alloy::detail
