// tiled_gemm sample kernel: c_tile += a_tile * b_tile for one tile x tile
// block of row-major floats, in the portable alloy dialect.
//
// The executor passes whole buffers, not slices, so each tile is found by its
// element offset. One work-item computes one element of the output tile:
// x (dimension 0) is the column, so neighbouring work-items read neighbouring
// elements of b and write neighbouring elements of c.

KERNEL void gemm_tile(const int tile, const int a_offset, const int b_offset, const int c_offset,
                      GLOBAL const float* restrict a, GLOBAL const float* restrict b,
                      GLOBAL float* restrict c) {
  const int col = (int)get_global_id(0);
  const int row = (int)get_global_id(1);
  // The host rounds the global size up to whole work-groups; skip the rest.
  if (row < tile && col < tile) {
    GLOBAL const float* a_row = a + a_offset + row * tile;
    GLOBAL const float* b_col = b + b_offset + col;
    float sum = 0.0f;
    for (int k = 0; k < tile; ++k) {
      sum += a_row[k] * b_col[k * tile];
    }
    c[c_offset + row * tile + col] += sum;
  }
}
