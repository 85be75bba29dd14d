// alloy.transpose: out = transpose(in) for a row-major float matrix of rows × columns, tunable, in the portable alloy dialect.
//
// A work-group moves one TILE_DIM × TILE_DIM tile with TILE_DIM × GROUP_ROWS
// work-items, each copying TILE_DIM / GROUP_ROWS rows of it. Dimension 0 runs
// along the columns of `in`, so reads are unit-stride across work-items. With
// USE_LOCAL the tile goes through local memory and is written back along the
// rows of `out`, so writes are unit-stride too; without it, writes stride by
// `rows`. Every access is bounds-checked: any rows × columns works.

// Side of the square tile one work-group moves.
#ifndef TILE_DIM
#define TILE_DIM 16
#endif
// Work-item rows in a work-group; must divide TILE_DIM.
#ifndef GROUP_ROWS
#define GROUP_ROWS 4
#endif
// 1: pad each local row by one element, so that reading a column of the tile
// hits distinct local-memory banks.
#ifndef PAD
#define PAD 0
#endif
// 1: stage the tile in local memory; 0: copy straight from in to out.
#ifndef USE_LOCAL
#define USE_LOCAL 1
#endif

KERNEL void transpose(const int rows, const int columns, GLOBAL const float* restrict in,
                      GLOBAL float* restrict out) {
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const int column0 = (int)get_group_id(0) * TILE_DIM;
  const int row0 = (int)get_group_id(1) * TILE_DIM;
#if USE_LOCAL
  LOCAL float tile[TILE_DIM * (TILE_DIM + PAD)];
  for (int j = 0; j < TILE_DIM / GROUP_ROWS; ++j) {
    const int r = j * GROUP_ROWS + ty;
    const int row = row0 + r;
    const int column = column0 + tx;
    if (row < rows && column < columns) {
      tile[r * (TILE_DIM + PAD) + tx] = in[row * columns + column];
    }
  }
  local_barrier();
  // Row r of the output tile is column r of the input tile.
  for (int j = 0; j < TILE_DIM / GROUP_ROWS; ++j) {
    const int r = j * GROUP_ROWS + ty;
    const int out_row = column0 + r;
    const int out_column = row0 + tx;
    if (out_row < columns && out_column < rows) {
      out[out_row * rows + out_column] = tile[tx * (TILE_DIM + PAD) + r];
    }
  }
#else
  for (int j = 0; j < TILE_DIM / GROUP_ROWS; ++j) {
    const int r = j * GROUP_ROWS + ty;
    const int row = row0 + r;
    const int column = column0 + tx;
    if (row < rows && column < columns) {
      out[column * rows + row] = in[row * columns + column];
    }
  }
#endif
}
