// Binding a tunable kernel's layout arguments to a task's buffers (internal
// to the runtime).
#pragma once

#include <vector>

#include "task.hpp"

namespace alloy::detail {

/// The task's accesses that the kernel's records and matrices declarations
/// name, found through the kernel's parameter names. A buffer passed for a
/// matrix without a description (BufferStorage::describe) is taken as packed
/// row-major. Throws InvalidArgument, naming the parameter, when an argument
/// there is not a buffer access of a whole buffer that fits the declaration
/// (records need a description), when a count, rows or columns argument does
/// not match what the buffer holds, or when the task accesses that buffer a
/// second time.
std::vector<LayoutBinding> bind_layouts(const TunableKernel& tunable, const KernelWork& kernel,
                                        const std::vector<Access>& accesses);

}  // namespace alloy::detail
