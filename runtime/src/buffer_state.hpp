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

/// Changed only by the executor running tasks on the buffer (one executor
/// per buffer at a time), under that executor's lock.
struct BufferState {
  IntervalSet host_valid;
  std::vector<PendingFill> host_fills;
  std::map<Device*, Replica> replicas;
  /// Counts the writes recorded: a copy converted from the buffer at one
  /// version is stale at any other.
  std::uint64_t version = 0;
  /// A converted copy the runtime keeps for a layout (LayoutViews): its
  /// bytes are never needed at home, so eviction drops them.
  bool scratch = false;
};

// state_of(BufferStorage&), declared in alloy/buffer.hpp, reaches it.

}  // namespace alloy::detail
