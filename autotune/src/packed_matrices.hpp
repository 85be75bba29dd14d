// Host layouts for the matrix arguments a harness leaves undescribed
// (internal to the tuner).
#pragma once

#include "alloy/autotune/harness.hpp"

namespace alloy::autotune::detail {

/// `target` with each buffer that a kernel matrix argument names, and that
/// has no host layout, described as a packed row-major matrix of the rows
/// and columns the harness passes for `problem`: what the executor assumes
/// of an undescribed buffer passed as a matrix. Throws InvalidArgument when
/// the harness passes those sizes as anything but a problem dimension or an
/// integer constant.
TuningTarget with_packed_matrices(const TuningTarget& target, const Extent& problem);

}  // namespace alloy::autotune::detail
