// One halo exchange over a grid split in blocks: every halo cell beside a
// neighbour then holds that neighbour's value for the cell, exactly, for
// 4- and 8-byte elements; corners are not checked (a single exchange sends
// them from the sender's own stale halo, and a 5-point stencil reads none).
// Run with mpiexec; arguments: ranks across and down (0 0: MPI chooses).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "alloy/mpi/environment.hpp"
#include "alloy/mpi/halo_exchange.hpp"
#include "alloy/mpi/messages.hpp"
#include "rank_setup.hpp"

namespace alloy::test {
namespace {

constexpr int columns = 37;
constexpr int rows = 29;
constexpr int halo = 2;

template <class T>
T value_of(int column, int row) {
  return static_cast<T>(static_cast<std::uint64_t>(row) * 100000u + static_cast<std::uint64_t>(column) + 1u) *
         static_cast<T>(sizeof(T) == 8 ? 0x100000001ull : 1u);
}

template <class T>
int check_one_exchange(const mpi::Communicator& world, const mpi::BlockDecomposition& d, Executor& executor) {
  Buffer<T> field(d.local_elements());
  const mpi::GridBlock mine = d.block();
  for (int row = mine.first_row - halo; row < mine.first_row + mine.rows + halo; ++row) {
    for (int column = mine.first_column - halo; column < mine.first_column + mine.columns + halo; ++column) {
      const bool inside = row >= mine.first_row && row < mine.first_row + mine.rows && column >= mine.first_column &&
                          column < mine.first_column + mine.columns;
      field.host()[d.local_index(column, row)] = inside ? value_of<T>(column, row) : T(0);
    }
  }
  Graph graph;
  mpi::HaloExchange(world, d, field).add_to(graph, 10);
  executor.run(graph);
  executor.synchronize(field);
  mpi::wait_or_abort(executor, world);
  int wrong = 0;
  const auto expect = [&](int column, int row, T expected) {
    const T seen = field.host()[d.local_index(column, row)];
    if (seen == expected) return;
    if (wrong++ == 0) {
      std::fprintf(stderr, "%s (%zu-byte elements): cell (%d, %d) holds %llu, expected %llu\n", world.label().c_str(),
                   sizeof(T), column, row, static_cast<unsigned long long>(seen),
                   static_cast<unsigned long long>(expected));
    }
  };
  for (const mpi::Side side : mpi::all_sides) {
    const bool has = d.neighbour(side).has_value();
    const bool across = side == mpi::Side::west || side == mpi::Side::east;
    for (int h = 0; h < halo; ++h) {
      if (across) {
        const int column = side == mpi::Side::west ? mine.first_column - 1 - h : mine.first_column + mine.columns + h;
        for (int row = mine.first_row; row < mine.first_row + mine.rows; ++row) {
          expect(column, row, has ? value_of<T>(column, row) : T(0));
        }
      } else {
        const int row = side == mpi::Side::south ? mine.first_row - 1 - h : mine.first_row + mine.rows + h;
        for (int column = mine.first_column; column < mine.first_column + mine.columns; ++column) {
          expect(column, row, has ? value_of<T>(column, row) : T(0));
        }
      }
    }
  }
  // The block itself is untouched.
  for (int row = mine.first_row; row < mine.first_row + mine.rows; ++row) {
    for (int column = mine.first_column; column < mine.first_column + mine.columns; ++column) {
      expect(column, row, value_of<T>(column, row));
    }
  }
  return wrong == 0 ? 0 : 1;
}

int run(int argc, char** argv) {
  mpi::Environment environment(argc, argv);
  const mpi::Communicator world;
  const int across = argc > 2 ? std::atoi(argv[1]) : 0;
  const int down = argc > 2 ? std::atoi(argv[2]) : 0;
  int status = 0;
  {
    Runtime runtime;
    Device* device = device_of_rank(runtime, world);
    if (!device) return skipped;
    const mpi::BlockDecomposition d(world, columns, rows, halo, across, down);
    if (world.rank() == 0) {
      std::printf("%d x %d cells over %d x %d ranks, halo %d\n", columns, rows, d.ranks_across(), d.ranks_down(), halo);
    }
    Executor executor(runtime, on_device(device));
    status = check_one_exchange<std::uint32_t>(world, d, executor) | check_one_exchange<std::uint64_t>(world, d, executor);
  }
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, world.handle());
  if (world.rank() == 0 && worst == 0) std::printf("every halo cell beside a neighbour holds its value\n");
  return worst;
}

}  // namespace
}  // namespace alloy::test

int main(int argc, char** argv) { return alloy::test::run(argc, argv); }
