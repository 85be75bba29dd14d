// A 2D grid split in blocks over ranks, each block with a halo of cells its
// neighbours own: the geometry of a stencil's halo exchange.
#pragma once

#include <array>
#include <cstddef>
#include <optional>

#include "alloy/buffer.hpp"

namespace alloy::mpi {

class Communicator;

/// Where a neighbour lies: west and east along columns (x), south and north
/// along rows (y, row 0 southmost).
enum class Side { west, east, south, north };
inline constexpr std::array<Side, 4> all_sides{Side::west, Side::east, Side::south, Side::north};
Side opposite(Side side);
const char* to_string(Side side);

/// A rectangle of the global grid: cells [first_column, first_column +
/// columns) x [first_row, first_row + rows).
struct GridBlock {
  int first_column = 0;
  int first_row = 0;
  int columns = 0;
  int rows = 0;
  bool operator==(const GridBlock&) const = default;
};

/// A grid of `columns` x `rows` cells over `ranks_across` x `ranks_down`
/// ranks, rank r at (r mod ranks_across, r / ranks_across). Blocks differ by
/// at most one column or row; the first ones get the extra cells. 1D
/// splits are ranks_across = 1 (by rows: halos are whole rows, contiguous)
/// or ranks_down = 1.
///
/// Each rank keeps its block with `halo` cells on every side in one
/// row-major local array of local_columns() x local_rows() elements. Toward
/// a neighbour it sends the `halo` cells next to that edge inside its block,
/// and receives the neighbour's into the halo on that side. Strips toward
/// south and north span whole local rows (corners included), so they are
/// one slice each; strips toward west and east are columns, strided in the
/// local array.
class BlockDecomposition {
 public:
  /// InvalidArgument unless ranks_across x ranks_down == size, every rank
  /// gets at least `halo` columns and rows, and halo >= 1.
  BlockDecomposition(int rank, int size, int columns, int rows, int halo, int ranks_across, int ranks_down);
  /// Over the communicator's ranks; ranks_across and ranks_down of 0 are
  /// chosen by MPI_Dims_create, the split closest to square.
  BlockDecomposition(const Communicator& communicator, int columns, int rows, int halo = 1, int ranks_across = 0,
                     int ranks_down = 0);

  int rank() const { return rank_; }
  int ranks_across() const { return ranks_across_; }
  int ranks_down() const { return ranks_down_; }
  int halo() const { return halo_; }
  GridBlock block() const { return block_of(rank_); }
  GridBlock block_of(int rank) const;
  /// The rank beside this one on `side`, none at the grid's edge.
  std::optional<int> neighbour(Side side) const;

  int local_columns() const { return block().columns + 2 * halo_; }
  int local_rows() const { return block().rows + 2 * halo_; }
  std::size_t local_elements() const {
    return static_cast<std::size_t>(local_columns()) * static_cast<std::size_t>(local_rows());
  }
  /// Index in the local array of global cell (column, row), which must lie
  /// in the block or its halo.
  std::size_t local_index(int column, int row) const;

  /// South and north only: the element ranges of the local array that hold
  /// the strip sent toward `side`, and the halo received from it.
  struct RowStrips {
    std::size_t first_sent = 0;
    std::size_t first_received = 0;
    std::size_t elements = 0;
  };
  RowStrips row_strips(Side side) const;
  /// West and east only: the first local column of the strip sent toward
  /// `side`, and of the halo received from it; each `halo` columns wide,
  /// local_rows() high.
  struct ColumnStrips {
    int first_sent = 0;
    int first_received = 0;
  };
  ColumnStrips column_strips(Side side) const;

 private:
  int rank_;
  int columns_, rows_, halo_;
  int ranks_across_, ranks_down_;
};

}  // namespace alloy::mpi
