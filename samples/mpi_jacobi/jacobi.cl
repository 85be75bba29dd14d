// One Jacobi sweep of the heat equation on a block of a row-major local
// array with a halo of one cell: next = the mean of the four neighbours in
// current, for cells [first_row, first_row + rows) x [first_column,
// first_column + columns). The sum is taken in one order everywhere, so a
// cell's value does not depend on how the grid was split.
KERNEL void jacobi_sweep(const int local_columns, const int first_row, const int rows, const int first_column,
                         const int columns, GLOBAL const float* current, GLOBAL float* next) {
  const int i = (int)get_global_id(0);
  if (i >= rows * columns) return;
  const int row = first_row + i / columns;
  const int column = first_column + i % columns;
  const int at = row * local_columns + column;
  const float sum = ((current[at - local_columns] + current[at + local_columns]) + current[at - 1]) + current[at + 1];
  next[at] = sum * 0.25f;
}
