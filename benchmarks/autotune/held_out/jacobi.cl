// One Jacobi step of a 5-point stencil on an n x n grid: every inner point
// becomes the mean of itself and its four neighbours; border points are
// copied. A work-item updates PY rows of one column; work-groups are
// TX x TY work-items.
#ifndef TX
#define TX 16
#endif
#ifndef TY
#define TY 4
#endif
#ifndef PY
#define PY 1
#endif

KERNEL void jacobi(const int n, GLOBAL const float* restrict in, GLOBAL float* restrict out) {
  const int x = (int)get_global_id(0);
  const int first_row = (int)get_global_id(1) * PY;
  if (x >= n) return;
  for (int p = 0; p < PY; ++p) {
    const int y = first_row + p;
    if (y >= n) return;
    const int i = y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
      out[i] = in[i];
    } else {
      out[i] = 0.2f * ((((in[i] + in[i - 1]) + in[i + 1]) + in[i - n]) + in[i + n]);
    }
  }
}
