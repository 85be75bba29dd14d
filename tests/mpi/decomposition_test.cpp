// Block decomposition geometry, without MPI running: every cell in exactly
// one block, neighbours that agree, and what one rank sends toward a side
// being the cells its neighbour's halo on the opposite side stands for.
#include <doctest/doctest.h>

#include <random>
#include <utility>
#include <vector>

#include "alloy/error.hpp"
#include "alloy/mpi/decomposition.hpp"
#include "support/random_seed.hpp"

namespace alloy::test {
namespace {

using mpi::BlockDecomposition;
using mpi::Side;

struct Cell {
  int column, row;
  bool operator==(const Cell&) const = default;
};

/// The global cell element `index` of `d`'s local array stands for.
Cell cell_at(const BlockDecomposition& d, std::size_t index) {
  const int local_column = static_cast<int>(index % static_cast<std::size_t>(d.local_columns()));
  const int local_row = static_cast<int>(index / static_cast<std::size_t>(d.local_columns()));
  return {d.block().first_column + local_column - d.halo(), d.block().first_row + local_row - d.halo()};
}

struct Split {
  int columns, rows, halo, across, down;
};

std::vector<Split> random_splits(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Split> splits{{16, 16, 1, 2, 2}, {7, 100, 2, 1, 4}, {100, 3, 1, 5, 1}, {9, 9, 3, 3, 3}};
  for (int i = 0; i < 40; ++i) {
    Split s{};
    s.across = 1 + static_cast<int>(random() % 5);
    s.down = 1 + static_cast<int>(random() % 5);
    s.halo = 1 + static_cast<int>(random() % 3);
    s.columns = s.across * s.halo + static_cast<int>(random() % 40);
    s.rows = s.down * s.halo + static_cast<int>(random() % 40);
    splits.push_back(s);
  }
  return splits;
}

}  // namespace

TEST_CASE("Mpi.Decomposition.blocks_cover_the_grid_once") {
  const std::uint64_t seed = random_seed();
  MESSAGE("seed " << seed << " (ALLOY_TEST_SEED replays it)");
  for (const Split& s : random_splits(seed)) {
    CAPTURE(s.columns);
    CAPTURE(s.rows);
    CAPTURE(s.across);
    CAPTURE(s.down);
    const int size = s.across * s.down;
    std::vector<int> owners(static_cast<std::size_t>(s.columns * s.rows), 0);
    for (int rank = 0; rank < size; ++rank) {
      const BlockDecomposition d(rank, size, s.columns, s.rows, s.halo, s.across, s.down);
      const mpi::GridBlock block = d.block();
      CHECK(block.columns >= s.columns / s.across);
      CHECK(block.columns <= s.columns / s.across + 1);
      CHECK(block.rows >= s.rows / s.down);
      CHECK(block.rows <= s.rows / s.down + 1);
      for (int row = block.first_row; row < block.first_row + block.rows; ++row) {
        for (int column = block.first_column; column < block.first_column + block.columns; ++column) {
          ++owners[static_cast<std::size_t>(row * s.columns + column)];
          CHECK(cell_at(d, d.local_index(column, row)) == Cell{column, row});
        }
      }
    }
    for (int owned : owners) REQUIRE(owned == 1);
  }
}

TEST_CASE("Mpi.Decomposition.a_sent_strip_is_the_neighbour_s_halo") {
  const std::uint64_t seed = random_seed();
  MESSAGE("seed " << seed << " (ALLOY_TEST_SEED replays it)");
  for (const Split& s : random_splits(seed)) {
    const int size = s.across * s.down;
    for (int rank = 0; rank < size; ++rank) {
      const BlockDecomposition mine(rank, size, s.columns, s.rows, s.halo, s.across, s.down);
      for (const Side side : mpi::all_sides) {
        CAPTURE(rank);
        CAPTURE(mpi::to_string(side));
        const std::optional<int> other = mine.neighbour(side);
        if (!other) continue;
        const BlockDecomposition theirs(*other, size, s.columns, s.rows, s.halo, s.across, s.down);
        REQUIRE(theirs.neighbour(mpi::opposite(side)) == rank);
        if (side == Side::south || side == Side::north) {
          const auto sent = mine.row_strips(side);
          const auto received = theirs.row_strips(mpi::opposite(side));
          REQUIRE(sent.elements == received.elements);
          REQUIRE(sent.elements == static_cast<std::size_t>(s.halo * mine.local_columns()));
          for (std::size_t i = 0; i < sent.elements; ++i) {
            REQUIRE(cell_at(mine, sent.first_sent + i) == cell_at(theirs, received.first_received + i));
          }
        } else {
          const auto sent = mine.column_strips(side);
          const auto received = theirs.column_strips(mpi::opposite(side));
          REQUIRE(mine.local_rows() == theirs.local_rows());
          for (int row = 0; row < mine.local_rows(); ++row) {
            for (int c = 0; c < s.halo; ++c) {
              const auto at = [&](const BlockDecomposition& d, int column) {
                return static_cast<std::size_t>(row) * static_cast<std::size_t>(d.local_columns()) +
                       static_cast<std::size_t>(column);
              };
              REQUIRE(cell_at(mine, at(mine, sent.first_sent + c)) ==
                      cell_at(theirs, at(theirs, received.first_received + c)));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("Mpi.Decomposition.bad_splits_are_refused") {
  CHECK_THROWS_WITH_AS(BlockDecomposition(0, 4, 16, 16, 1, 3, 1),
                       doctest::Contains("must multiply to the 4 ranks"), InvalidArgument);
  CHECK_THROWS_WITH_AS(BlockDecomposition(0, 4, 6, 16, 2, 4, 1), doctest::Contains("narrower than the halo"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(BlockDecomposition(0, 1, 6, 6, 0, 1, 1), doctest::Contains("at least one cell"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(BlockDecomposition(4, 4, 16, 16, 1, 2, 2), doctest::Contains("rank 4 is not one of them"),
                       InvalidArgument);
  const BlockDecomposition d(0, 1, 8, 8, 1, 1, 1);
  CHECK_THROWS_AS(d.row_strips(Side::west), InvalidArgument);
  CHECK_THROWS_AS(d.column_strips(Side::north), InvalidArgument);
  CHECK_THROWS_AS(d.local_index(10, 0), InvalidArgument);
}

}  // namespace alloy::test
