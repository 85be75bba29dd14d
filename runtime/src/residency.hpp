// How much device memory an executor's replicas take per device, and the cap
// on it (internal to the runtime).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>

#include "alloy/buffer.hpp"

namespace alloy::detail {

/// The replicas one executor keeps on one device.
struct Residency {
  std::size_t limit = 0;  ///< bytes; 0: only the device's own memory limits
  std::size_t used = 0;
  std::set<BufferStorage*> resident;
};

/// ALLOY_DEVICE_MEMORY_LIMIT: bytes, with an optional K, M or G suffix
/// (powers of 1024). nullopt when unset; InvalidArgument when malformed.
std::optional<std::size_t> device_memory_limit_from_environment();
/// "1.5 MiB": sizes in errors.
std::string describe_bytes(std::size_t bytes);

}  // namespace alloy::detail
