// White-box views of where a buffer's bytes are, for the executor's tests.
#pragma once

#include "alloy/buffer.hpp"
#include "data/buffer_state.hpp"

namespace alloy::test {

inline std::size_t replica_count(const BufferStorage& storage) {
  return detail::state_of(storage).replica_count();
}

inline bool has_replica(const BufferStorage& storage, const Device* device) {
  return detail::state_of(storage).replica(device) != nullptr;
}

/// The device's replica holds valid data for all of `range`.
inline bool valid_on(const BufferStorage& storage, const Device* device, ByteRange range) {
  const detail::Replica* replica = detail::state_of(storage).replica(device);
  return replica != nullptr && replica->valid.contains(range);
}

inline bool valid_on_host(const BufferStorage& storage, ByteRange range) {
  return detail::state_of(storage).valid_at_home(range);
}

}  // namespace alloy::test
