// Tuning a kernel on a launch captured from a running program
// (alloy/capture.hpp): `autotune --capture FILE`.
#pragma once

#include "alloy/autotune/harness.hpp"
#include "alloy/capture.hpp"

namespace alloy::autotune {

/// A target that tunes the captured kernel over its own tuning space on the
/// captured inputs, at the captured problem size. Every configuration must
/// reproduce the captured outputs under `check`: integers always exactly,
/// floats within its tolerances, or as sums or sorted multisets when the
/// kernel's results may come out in another order. Records and matrices the
/// program described are compared field by field (element by element).
/// Buffers are typed by their kernel parameter's element type ("GLOBAL
/// float*": float), bytes where it is no scalar type.
TuningTarget capture_target(const Capture& capture, const OutputCheck& check = {});

}  // namespace alloy::autotune
