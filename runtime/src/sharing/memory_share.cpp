// Memory shares: what one comes to on a device, and which are refused.
#include "memory_share.hpp"

#include <cmath>
#include <string>

#include "alloy/error.hpp"

namespace alloy {

std::size_t MemoryShare::on(std::size_t device_memory) const {
  if (fraction > 0) return static_cast<std::size_t>(std::floor(fraction * static_cast<double>(device_memory)));
  return bytes;
}

namespace detail {

void check_memory_share(const std::optional<MemoryShare>& share) {
  if (!share) return;
  if (share->fraction != 0 && !(share->fraction > 0 && share->fraction <= 1)) {
    throw InvalidArgument("ExecutorOptions::memory_share.fraction is " + std::to_string(share->fraction) +
                          "; give a fraction of each device's memory in (0, 1], or bytes with fraction 0");
  }
  if (share->fraction == 0 && share->bytes == 0) {
    throw InvalidArgument("ExecutorOptions::memory_share is empty; give a fraction of each device's memory in "
                          "(0, 1] or a byte count, or leave it unset");
  }
}

}  // namespace detail
}  // namespace alloy
