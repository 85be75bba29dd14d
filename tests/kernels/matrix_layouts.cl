// A kernel that reads and writes layout-tuned arguments through AT2: the
// runtime's ALLOY_<parameter>_* defines say how each argument lies.

// b(r, c) = 2 a(r, c) + 1000 r + c over a rows x columns matrix.
KERNEL void matrix_step(const int rows, const int columns, GLOBAL const float* restrict a, GLOBAL float* restrict b) {
  const int c = (int)get_global_id(0);
  const int r = (int)get_global_id(1);
  if (r >= rows || c >= columns) return;
  AT2(b, r, c) = 2.0f * AT2(a, r, c) + (float)(1000 * r + c);
}
