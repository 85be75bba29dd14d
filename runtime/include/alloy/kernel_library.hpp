// alloy's own tunable kernels, ready to launch through Runtime::tuned().
#pragma once

#include "alloy/tunable_kernel.hpp"

namespace alloy::kernel_library {

/// Which gemm: operands used transposed, and the element type.
struct GemmOptions {
  bool transpose_a = false;  ///< A is stored K×M and used as its transpose
  bool transpose_b = false;  ///< B is stored N×K and used as its transpose
  ScalarType element = ScalarType::f32;  ///< f32 or f64 (double needs a device with fp64)
};

/// C = op(A) × op(B) for row-major matrices, op(A) M×K, op(B) K×N, C M×N;
/// problem Extent(M, N, K), any size. Arguments: (int M, int N, int K, A, B,
/// C). CLBlast-style tunables: tile sizes, work per work-item, vector width,
/// local-memory caching of A and B. Tiles inside C run without bounds
/// checks; those on its edges, and a last step along K that KWG does not
/// divide, check them. Each variant is its own kernel for profiles:
/// "alloy.gemm", "alloy.gemm.tn", "alloy.dgemm.nt"... InvalidArgument for
/// another element type.
const TunableKernel& gemm(const GemmOptions& options);
/// The float gemm without transposes.
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
