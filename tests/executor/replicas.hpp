// White-box views of where a buffer's bytes are, for the executor's tests.
#pragma once

#include "alloy/buffer.hpp"
#include "buffer_state.hpp"

namespace alloy::test {

inline std::size_t replica_count(const BufferStorage& storage) {
  return detail::state_of(storage).replicas.size();
}

inline bool has_replica(const BufferStorage& storage, const Device* device) {
  return detail::state_of(storage).replicas.count(const_cast<Device*>(device)) == 1;
}

/// The device's replica holds valid data for all of `range`.
inline bool valid_on(const BufferStorage& storage, const Device* device, ByteRange range) {
  const auto& replicas = detail::state_of(storage).replicas;
  const auto found = replicas.find(const_cast<Device*>(device));
  return found != replicas.end() && found->second.valid.contains(range);
}

inline bool valid_on_host(const BufferStorage& storage, ByteRange range) {
  return detail::state_of(storage).host_valid.contains(range);
}

}  // namespace alloy::test
