// Priority classes as the executor applies them (internal to the runtime).
#pragma once

#include <optional>

#include "alloy/backend/queue.hpp"
#include "alloy/sharing.hpp"

namespace alloy::detail {

/// `chosen` if set, else ALLOY_PRIORITY_CLASS if set and not empty, else
/// normal. InvalidArgument naming the variable for text that is no class.
PriorityClass priority_class_or_environment(std::optional<PriorityClass> chosen);

/// The queue priority an executor of `priority_class` creates its lanes with.
QueuePriority queue_priority_of(PriorityClass priority_class);

}  // namespace alloy::detail
