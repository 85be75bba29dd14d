// A harness buffer's initial contents, from its fill and a fixed seed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "alloy/autotune/harness.hpp"

namespace alloy::autotune {

/// How many elements `buffer` has for `problem`: its elements over its
/// divisor, rounded up; 0 or less when the sizes make no buffer.
std::int64_t buffer_elements(const TunableKernel& kernel, const HarnessBuffer& buffer, const Extent& problem);

/// `count` elements of `buffer.type` filled as `buffer.fill` says, from
/// `seed` alone, or read from `buffer.file` (throws InvalidArgument naming
/// the file when it does not hold them): every evaluator, in every run,
/// sees the same inputs. The
/// evaluator seeds buffer i with 0x5eed + i, so a host reference written
/// apart from the tuner can reproduce them.
HostArray initial_contents(const HarnessBuffer& buffer, std::size_t count, std::uint64_t seed);

}  // namespace alloy::autotune
