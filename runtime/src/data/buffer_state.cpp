// What others may do with a buffer's state that coherence owns.
#include "buffer_state.hpp"

#include <algorithm>

namespace alloy::detail {

const Replica* BufferState::replica(const Device* device) const {
  const auto found = replicas_.find(const_cast<Device*>(device));
  return found == replicas_.end() ? nullptr : &found->second;
}

bool BufferState::settled_at_home(std::size_t bytes) const {
  return host_valid_.missing({0, bytes}).empty() &&
         std::all_of(host_fills_.begin(), host_fills_.end(),
                     [](const PendingFill& fill) { return fill.event->is_complete(); });
}

void BufferState::add_replica(Device* device, std::unique_ptr<DeviceBuffer> memory, std::uint64_t when,
                              std::uint64_t serial) {
  Replica& replica = replicas_[device];
  replica.memory = std::move(memory);
  replica.last_use = when;
  replica.serial = serial;
}

bool BufferState::touch(Device* device, std::uint64_t when) {
  const auto found = replicas_.find(device);
  if (found == replicas_.end()) return false;
  found->second.last_use = when;
  return true;
}

BufferState::Taken BufferState::take_replica(Device* device) {
  const auto found = replicas_.find(device);
  if (found == replicas_.end()) return {};
  Taken taken{std::move(found->second.memory), {}};
  for (const PendingFill& fill : found->second.fills) taken.before_free.push_back(fill.event);
  for (const auto& [queue, event] : found->second.uses) taken.before_free.push_back(event);
  replicas_.erase(found);
  return taken;
}

}  // namespace alloy::detail
