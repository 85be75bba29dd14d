// Where a buffer's bytes are valid: host memory and each device replica, and
// the transfers still bringing them there (internal to the runtime).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "alloy/backend/event.hpp"
#include "alloy/backend/memory.hpp"
#include "alloy/buffer.hpp"
#include "alloy/interval_set.hpp"

namespace alloy {
class Device;
class Queue;
}  // namespace alloy

namespace alloy::detail {

/// A transfer that makes `range` valid somewhere once `event` completes:
/// users of that range there must wait for it.
struct PendingFill {
  ByteRange range;
  std::shared_ptr<Event> event;
};

struct Replica {
  std::unique_ptr<DeviceBuffer> memory;
  IntervalSet valid;
  std::vector<PendingFill> fills;
  /// Per queue, the last command that reads or writes this memory: the
  /// replica may be freed once these completed (queues run in order).
  std::vector<std::pair<Queue*, std::shared_ptr<Event>>> uses;
  std::uint64_t last_use = 0;  ///< when a task last needed it: least recent goes first
  /// Host threads writing it now (direct file reads): such a write has no
  /// event eviction could wait for, so the replica stays until it is done.
  unsigned host_writers = 0;
  /// Unique per replica made in this process: memory freed and allocated
  /// again is another replica, even at the same address.
  std::uint64_t serial = 0;
};

class Coherence;

/// Where one buffer's bytes are valid. Coherence owns it: it alone decides
/// which bytes are valid where, and changes them. Residency gives replicas
/// memory and takes it back, file reads mark a replica written by a host
/// thread, and layout views keep converted copies; each through the
/// operations below, which leave validity alone (a new replica holds
/// nothing valid). Changed only by the executor running tasks on the buffer
/// (one executor per buffer at a time), under that executor's lock.
class BufferState {
 public:
  /// `valid_at_home` bytes from the start are valid in host memory.
  explicit BufferState(std::size_t valid_at_home) { host_valid_.add({0, valid_at_home}); }

  // Read by anyone.
  const Replica* replica(const Device* device) const;
  std::size_t replica_count() const { return replicas_.size(); }
  /// The replica's memory on `device`, which must have one.
  DeviceBuffer& memory_on(const Device* device) const { return *replicas_.at(const_cast<Device*>(device)).memory; }
  bool valid_at_home(ByteRange range) const { return host_valid_.contains(range); }
  /// Every byte of [0, bytes) is valid at home and no transfer there is
  /// still on its way: nothing still writes the host's bytes.
  bool settled_at_home(std::size_t bytes) const;
  /// Counts the writes recorded: a copy converted from the buffer at one
  /// version is stale at any other.
  std::uint64_t version() const { return version_; }

  // Residency: memory for replicas.
  /// A replica on `device` with `memory`, holding nothing valid yet.
  void add_replica(Device* device, std::unique_ptr<DeviceBuffer> memory, std::uint64_t when, std::uint64_t serial);
  /// Marks the replica on `device` used at `when`; false if there is none.
  bool touch(Device* device, std::uint64_t when);
  /// The replica's memory, taken away with what must complete before it may
  /// be freed (its pending fills and every use). Its bytes are no longer
  /// valid anywhere but where coherence has them: write them back first.
  struct Taken {
    std::unique_ptr<DeviceBuffer> memory;
    std::vector<std::shared_ptr<Event>> before_free;
  };
  Taken take_replica(Device* device);

  // File reads straight into a replica.
  void add_host_writer(Device* device) { ++replicas_.at(device).host_writers; }
  /// True when no host thread writes the replica any more.
  bool remove_host_writer(Device* device) { return --replicas_.at(device).host_writers == 0; }

  // Layout views.
  /// A converted copy the runtime keeps for a layout: its bytes are never
  /// needed at home, so eviction drops them rather than writing them back.
  void mark_scratch() { scratch_ = true; }

 private:
  friend class Coherence;

  IntervalSet host_valid_;
  std::vector<PendingFill> host_fills_;
  std::map<Device*, Replica> replicas_;
  std::uint64_t version_ = 0;
  bool scratch_ = false;
};

// state_of(BufferStorage&), declared in alloy/buffer.hpp, reaches it.

}  // namespace alloy::detail
