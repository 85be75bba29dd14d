// Memory shares as the executor applies them (internal to the runtime).
#pragma once

#include <optional>

#include "alloy/sharing.hpp"

namespace alloy::detail {

/// InvalidArgument for a share that is no share: a fraction outside
/// (0, 1], or neither a fraction nor bytes.
void check_memory_share(const std::optional<MemoryShare>& share);

}  // namespace alloy::detail
