// samples/mpi_jacobi: the heat equation on a square grid split over MPI
// ranks, each rank's block swept on its device with the halo exchange as
// tasks of the same graph. Prints each rank's time split into compute,
// communication and both at once; --check compares the grid with the same
// sweeps on the host, bit for bit.
//
//   mpiexec -n 4 build/default/bin/mpi_jacobi --size 512 --iterations 200 --check
#include <charconv>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <vector>

#include "alloy/mpi/environment.hpp"
#include "alloy/mpi/messages.hpp"
#include "jacobi_solver.hpp"
#include "time_split.hpp"

namespace {

/// The whole grid on rank 0, from every rank's block (empty elsewhere).
std::vector<float> gather_grid(const alloy::mpi::Communicator& world, const alloy::mpi::BlockDecomposition& d,
                               const std::vector<float>& block, int size) {
  std::vector<int> counts(static_cast<std::size_t>(world.size())), offsets(counts.size());
  for (int rank = 0, offset = 0; rank < world.size(); ++rank) {
    const alloy::mpi::GridBlock b = d.block_of(rank);
    counts[static_cast<std::size_t>(rank)] = b.columns * b.rows;
    offsets[static_cast<std::size_t>(rank)] = offset;
    offset += b.columns * b.rows;
  }
  std::vector<float> blocks(world.rank() == 0 ? static_cast<std::size_t>(size) * static_cast<std::size_t>(size) : 0);
  MPI_Gatherv(block.data(), static_cast<int>(block.size()), MPI_FLOAT, blocks.data(), counts.data(), offsets.data(),
              MPI_FLOAT, 0, world.handle());
  if (world.rank() != 0) return {};
  std::vector<float> grid(blocks.size());
  for (int rank = 0; rank < world.size(); ++rank) {
    const alloy::mpi::GridBlock b = d.block_of(rank);
    for (int row = 0; row < b.rows; ++row) {
      for (int column = 0; column < b.columns; ++column) {
        grid[static_cast<std::size_t>((b.first_row + row) * size + b.first_column + column)] =
            blocks[static_cast<std::size_t>(offsets[static_cast<std::size_t>(rank)] + row * b.columns + column)];
      }
    }
  }
  return grid;
}

}  // namespace

int main(int argc, char** argv) {
  alloy::mpi::Environment mpi(argc, argv);
  const alloy::mpi::Communicator world;
  jacobi::Settings settings;
  int across = 0, down = 0;
  bool check = false;
  std::string output;
  CLI::App app{"The heat equation over MPI ranks, halo exchange overlapped with compute."};
  app.add_option("--size", settings.size, "the grid is SIZE x SIZE cells")->check(CLI::PositiveNumber);
  // The graph holds two sweeps (there and back), so the count is even.
  const CLI::Validator even(
      [](std::string& value) {
        long sweeps = 0;
        const auto [end, failed] = std::from_chars(value.data(), value.data() + value.size(), sweeps);
        const bool odd = failed == std::errc() && end == value.data() + value.size() && sweeps % 2 != 0;
        return odd ? "--iterations " + value + ": give an even number of sweeps" : std::string();
      },
      "EVEN");
  app.add_option("--iterations", settings.iterations, "sweeps (an even number)")
      ->check(CLI::PositiveNumber & even);
  app.add_option("--across", across, "ranks along columns (0: MPI chooses)")->check(CLI::NonNegativeNumber);
  app.add_option("--down", down, "ranks along rows (0: MPI chooses)")->check(CLI::NonNegativeNumber);
  app.add_flag("!--no-overlap", settings.overlap, "exchange the halo first, then sweep");
  app.add_flag("--check", check, "compare with the same sweeps on the host, bit for bit");
  app.add_option("--output", output, "rank 0 writes the grid here, as raw floats");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return world.rank() == 0 ? app.exit(error) : 1;
  }
  int status = 0;
  try {
    alloy::Runtime runtime;
    if (runtime.devices().empty()) throw alloy::Error(world.label() + " has no device");
    alloy::ExecutorOptions options;
    alloy::Device& device = *runtime.devices()[static_cast<std::size_t>(world.local_rank()) % runtime.devices().size()];
    options.devices = {&device};
    options.trace = true;
    alloy::Executor executor(runtime, options);
    const alloy::mpi::BlockDecomposition d(world, settings.size, settings.size, 1, across, down);
    const jacobi::Solution solution = jacobi::solve(executor, device, world, d, settings);
    const std::vector<float>& block = solution.cells;
    const double wall_ms = solution.wall_ms;
    const jacobi::TimeSplit split = jacobi::split_time(executor.trace());
    double mine[4] = {wall_ms, split.compute_ms, split.communication_ms, split.overlap_ms};
    std::vector<double> all(static_cast<std::size_t>(4 * world.size()));
    MPI_Gather(mine, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, 0, world.handle());
    const std::vector<float> grid = gather_grid(world, d, block, settings.size);
    if (world.rank() == 0) {
      std::printf("%d x %d cells, %d sweeps, %d x %d ranks, halo exchange %s, messages %s\n", settings.size,
                  settings.size, settings.iterations, d.ranks_across(), d.ranks_down(),
                  settings.overlap ? "overlapped with the interior's sweep" : "first, then the sweep",
                  alloy::mpi::to_string(alloy::mpi::message_path()).c_str());
      for (int rank = 0; rank < world.size(); ++rank) {
        const double* r = &all[static_cast<std::size_t>(4 * rank)];
        std::printf("rank %d: %.1f ms after the first two sweeps; in all sweeps, compute %.1f ms, communication "
                    "%.1f ms, both at once %.1f ms\n", rank, r[0], r[1], r[2], r[3]);
      }
      if (!output.empty()) {
        std::ofstream(output, std::ios::binary)
            .write(reinterpret_cast<const char*>(grid.data()), static_cast<std::streamsize>(grid.size() * sizeof(float)));
      }
      if (check) {
        const std::vector<float> expected = jacobi::solve_on_host(settings);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < grid.size(); ++i) wrong += grid[i] != expected[i];
        std::printf("check against the host: %zu of %zu cells differ\n", wrong, grid.size());
        status = wrong == 0 ? 0 : 1;
      }
    }
  } catch (const std::exception& error) {
    world.abort(error.what());
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, world.handle());
  return status;
}
