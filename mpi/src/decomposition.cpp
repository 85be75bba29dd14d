// Block geometry of a grid split over ranks.
#include "alloy/mpi/decomposition.hpp"

#include <mpi.h>

#include <string>

#include "alloy/error.hpp"
#include "alloy/mpi/communicator.hpp"

namespace alloy::mpi {
namespace {

/// Block `index` of `parts` over `cells`: the first (cells mod parts) get one more.
std::array<int, 2> split(int cells, int parts, int index) {
  const int base = cells / parts;
  const int extra = cells % parts;
  const int first = index * base + (index < extra ? index : extra);
  return {first, base + (index < extra ? 1 : 0)};
}

std::array<int, 2> dims_for(int size, int across, int down) {
  int dims[2] = {down, across};  // MPI_Dims_create fills zeros, slowest dimension first
  MPI_Dims_create(size, 2, dims);
  return {dims[1], dims[0]};
}

}  // namespace

Side opposite(Side side) {
  switch (side) {
    case Side::west: return Side::east;
    case Side::east: return Side::west;
    case Side::south: return Side::north;
    case Side::north: return Side::south;
  }
  return side;
}

const char* to_string(Side side) {
  static constexpr const char* names[] = {"west", "east", "south", "north"};
  return names[static_cast<int>(side)];
}

BlockDecomposition::BlockDecomposition(int rank, int size, int columns, int rows, int halo, int ranks_across,
                                       int ranks_down)
    : rank_(rank), columns_(columns), rows_(rows), halo_(halo), ranks_across_(ranks_across), ranks_down_(ranks_down) {
  const std::string what = "a " + std::to_string(columns) + " x " + std::to_string(rows) + " grid over " +
                           std::to_string(ranks_across) + " x " + std::to_string(ranks_down) + " ranks with halo " +
                           std::to_string(halo);
  if (ranks_across < 1 || ranks_down < 1 || ranks_across * ranks_down != size) {
    throw InvalidArgument(what + ": the ranks across and down must multiply to the " + std::to_string(size) +
                          " ranks there are");
  }
  if (rank < 0 || rank >= size) throw InvalidArgument(what + ": rank " + std::to_string(rank) + " is not one of them");
  if (halo < 1) throw InvalidArgument(what + ": the halo must be at least one cell");
  if (columns / ranks_across < halo || rows / ranks_down < halo) {
    throw InvalidArgument(what + ": some block would be narrower than the halo; use fewer ranks or a larger grid");
  }
}

BlockDecomposition::BlockDecomposition(const Communicator& communicator, int columns, int rows, int halo,
                                       int ranks_across, int ranks_down)
    : BlockDecomposition(communicator.rank(), communicator.size(), columns, rows, halo,
                         dims_for(communicator.size(), ranks_across, ranks_down)[0],
                         dims_for(communicator.size(), ranks_across, ranks_down)[1]) {}

GridBlock BlockDecomposition::block_of(int rank) const {
  const auto [first_column, block_columns] = split(columns_, ranks_across_, rank % ranks_across_);
  const auto [first_row, block_rows] = split(rows_, ranks_down_, rank / ranks_across_);
  return {first_column, first_row, block_columns, block_rows};
}

std::optional<int> BlockDecomposition::neighbour(Side side) const {
  const int x = rank_ % ranks_across_;
  const int y = rank_ / ranks_across_;
  switch (side) {
    case Side::west: return x > 0 ? std::optional(rank_ - 1) : std::nullopt;
    case Side::east: return x + 1 < ranks_across_ ? std::optional(rank_ + 1) : std::nullopt;
    case Side::south: return y > 0 ? std::optional(rank_ - ranks_across_) : std::nullopt;
    case Side::north: return y + 1 < ranks_down_ ? std::optional(rank_ + ranks_across_) : std::nullopt;
  }
  return std::nullopt;
}

std::size_t BlockDecomposition::local_index(int column, int row) const {
  const GridBlock mine = block();
  const int local_column = column - mine.first_column + halo_;
  const int local_row = row - mine.first_row + halo_;
  if (local_column < 0 || local_column >= local_columns() || local_row < 0 || local_row >= local_rows()) {
    throw InvalidArgument("cell (" + std::to_string(column) + ", " + std::to_string(row) +
                          ") is outside rank " + std::to_string(rank_) + "'s block and halo");
  }
  return static_cast<std::size_t>(local_row) * static_cast<std::size_t>(local_columns()) +
         static_cast<std::size_t>(local_column);
}

BlockDecomposition::RowStrips BlockDecomposition::row_strips(Side side) const {
  if (side != Side::south && side != Side::north) {
    throw InvalidArgument(std::string("row_strips(") + to_string(side) + "): west and east strips are columns");
  }
  const std::size_t row = static_cast<std::size_t>(local_columns());
  const std::size_t h = static_cast<std::size_t>(halo_);
  const std::size_t interior_rows = static_cast<std::size_t>(block().rows);
  if (side == Side::south) return {h * row, 0, h * row};
  return {interior_rows * row, (interior_rows + h) * row, h * row};
}

BlockDecomposition::ColumnStrips BlockDecomposition::column_strips(Side side) const {
  if (side != Side::west && side != Side::east) {
    throw InvalidArgument(std::string("column_strips(") + to_string(side) + "): south and north strips are rows");
  }
  if (side == Side::west) return {halo_, 0};
  return {block().columns, block().columns + halo_};
}

}  // namespace alloy::mpi
