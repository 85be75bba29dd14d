// y = A x for a row-major m x n matrix of floats. Each work-item computes
// ROWS consecutive rows; each dot product is unrolled UNROLL times with one
// running sum, so every configuration adds in the same order. The host
// launches work-groups of WGS work-items.
#ifndef ROWS
#define ROWS 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

KERNEL void gemv(const int m, const int n, GLOBAL const float* restrict a, GLOBAL const float* restrict x,
                 GLOBAL float* restrict y) {
  const int first = (int)get_global_id(0) * ROWS;
  for (int r = 0; r < ROWS; ++r) {
    const int row = first + r;
    if (row >= m) return;
    GLOBAL const float* a_row = a + (size_t)row * (size_t)n;
    float sum = 0.0f;
    int k = 0;
    for (; k + UNROLL <= n; k += UNROLL) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) sum += a_row[k + u] * x[k + u];
    }
    for (; k < n; ++k) sum += a_row[k] * x[k];
    y[row] = sum;
  }
}
