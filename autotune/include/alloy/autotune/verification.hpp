// Whether a kernel's output matches its reference, per the output's check.
#pragma once

#include <optional>
#include <string>

#include "alloy/autotune/harness.hpp"

namespace alloy::autotune {

/// Why `got` does not match `expected` under `buffer.check` (how many
/// elements are wrong, and the first with its value and the expected one),
/// or nothing when it matches. Integers compare exactly; floats within the
/// check's tolerances, and NaN never matches. Throws InvalidArgument when
/// the arrays differ in type or size.
std::optional<std::string> compare_output(const HarnessBuffer& buffer, const HostArray& got,
                                          const HostArray& expected);

}  // namespace alloy::autotune
