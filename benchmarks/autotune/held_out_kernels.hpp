// Three kernels alloy does not ship, written as an application would write
// them, with their harnesses: what parts (f) and (g) of bench_autotune tune.
#pragma once

#include "alloy/autotune/harness.hpp"
#include "alloy/autotune/tuner.hpp"

namespace alloy::bench {

struct HeldOut {
  autotune::TuningTarget target;
  Extent problem;
};

/// A 5-point Jacobi stencil on 2048 x 2048 floats.
HeldOut held_out_jacobi();
/// y = A x for a 4096 x 2048 float matrix.
HeldOut held_out_gemv();
/// A histogram of 16 Mi skewed bytes, with atomics.
HeldOut held_out_histogram();

/// The `autotune` command's default budget and strategy, with `seed`.
autotune::TuneOptions default_tune_options(std::uint64_t seed);

}  // namespace alloy::bench
