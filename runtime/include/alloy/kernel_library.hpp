// alloy's own tunable kernels, ready to launch through Runtime::tuned().
#pragma once

#include "alloy/tunable_kernel.hpp"

namespace alloy::kernel_library {

/// C = A × B for row-major float matrices, A M×K, B K×N, C M×N; problem
/// Extent(M, N, K). Arguments: (int M, int N, int K, A, B, C). CLBlast-style
/// tunables: tile sizes, work per work-item, vector width, local-memory
/// caching of A and B. The kernel has no bounds checks: M, N and K must be
/// multiples of the configuration's tiles (16, 16 and 8 for the defaults),
/// which the space's constraints ensure for tuned configurations.
const TunableKernel& gemm();

/// out = transpose(in) for a row-major float matrix of rows × columns;
/// problem Extent(columns, rows). Arguments: (int rows, int columns, in, out).
const TunableKernel& transpose();

/// out[0] += sum(in[0..n)); problem Extent(n). Arguments: (int n, in, out).
const TunableKernel& reduce();

/// a[i] = b[i] + scalar × c[i]; problem Extent(n). Arguments:
/// (int n, float scalar, a, b, c).
const TunableKernel& triad();

}  // namespace alloy::kernel_library
