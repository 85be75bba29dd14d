// The solver: one rank's block of the grid, swept as graph tasks with its
// halo exchange, and the same sweeps on the host for checking.
#pragma once

#include <vector>

#include "alloy/alloy.hpp"
#include "alloy/mpi/decomposition.hpp"
#include "alloy/mpi/halo_exchange.hpp"

namespace jacobi {

struct Settings {
  int size = 512;          ///< the grid is size x size cells
  int iterations = 100;    ///< sweeps; an even number
  bool overlap = true;     ///< interior sweeps while the halo travels; else exchange first, then sweep
};

/// The fixed boundary: the northern edge at 1, the others at 0.
float boundary_value(int column, int row, int size);

struct Solution {
  std::vector<float> cells;  ///< the block's, block().columns x block().rows, row-major
  /// From after the first two sweeps (which compile the kernel) to the end.
  double wall_ms = 0;
};

/// Sweeps this rank's block `iterations` times on `device`, the executor's.
/// The block's host memory is page-locked through it: halo strips are staged
/// there on their way to and from other ranks.
Solution solve(alloy::Executor& executor, alloy::Device& device, const alloy::mpi::Communicator& world,
               const alloy::mpi::BlockDecomposition& decomposition, const Settings& settings);

/// The whole grid swept on the host in the same order of operations: what
/// any split must give, bit for bit. Row-major, size x size.
std::vector<float> solve_on_host(const Settings& settings);

}  // namespace jacobi
