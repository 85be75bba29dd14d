// A rank's time split into compute, communication and both at once, from
// its executor's trace.
#pragma once

#include "alloy/trace.hpp"

namespace jacobi {

struct TimeSplit {
  double compute_ms = 0;        ///< some kernel ran
  double communication_ms = 0;  ///< some message was in flight (its async task)
  double overlap_ms = 0;        ///< both at once
};

/// Kernels against async tasks (which the trace records as host tasks).
TimeSplit split_time(const alloy::Trace& trace);

}  // namespace jacobi
