// Graph of two sweeps (current to next and back) with their halo
// exchanges, run iterations / 2 times.
#include "jacobi_solver.hpp"

#include <chrono>
#include <string>

#include "embedded/jacobi_source.hpp"
#include "alloy/mpi/messages.hpp"

namespace jacobi {
namespace {

using alloy::mpi::BlockDecomposition;

const alloy::ProgramSource kernels{"jacobi.cl", std::string(alloy_kernels::jacobi_source), ""};

/// A rectangle of local cells to sweep.
struct Cells {
  int first_row, rows, first_column, columns;
};

/// A sweep of `cells` from `current` into `next`: it reads the rows around
/// them and changes only theirs, so sweeps of other rows are independent.
void add_sweep(alloy::Graph& graph, const BlockDecomposition& d, const alloy::Buffer<float>& current,
               const alloy::Buffer<float>& next, Cells cells, const char* name) {
  if (cells.rows <= 0 || cells.columns <= 0) return;
  const std::size_t row = static_cast<std::size_t>(d.local_columns());
  const std::size_t first = static_cast<std::size_t>(cells.first_row) * row;
  const std::size_t count = static_cast<std::size_t>(cells.rows) * row;
  alloy::TaskOptions options;
  options.name = name;
  options.flops = 4.0 * cells.rows * cells.columns;
  options.bytes = 5 * sizeof(float) * static_cast<std::size_t>(cells.rows * cells.columns);
  graph.kernel(kernels, "jacobi_sweep", {alloy::Extent(static_cast<std::size_t>(cells.rows * cells.columns))},
               {d.local_columns(), cells.first_row, cells.rows, cells.first_column, cells.columns,
                alloy::read(current.slice(first - row, count + 2 * row)),
                alloy::read_write(next.slice(first, count))},
               options);
}

/// One sweep with its exchange. Overlapped: first the cells that need none
/// of the halo (all but the rows and columns beside a neighbour), then the
/// exchange, then the cells beside each neighbour; else the exchange, then
/// every cell.
void add_step(alloy::Graph& graph, const BlockDecomposition& d, const alloy::mpi::HaloExchange& exchange,
              const alloy::Buffer<float>& current, const alloy::Buffer<float>& next, int tag_base, bool overlap) {
  using alloy::mpi::Side;
  const int rows = d.block().rows;
  const int columns = d.block().columns;
  if (!overlap) {
    exchange.add_to(graph, tag_base);
    add_sweep(graph, d, current, next, {1, rows, 1, columns}, "sweep");
    return;
  }
  const bool south = d.neighbour(Side::south).has_value();
  const bool north = d.neighbour(Side::north).has_value() && rows > 1;
  const bool west = d.neighbour(Side::west).has_value();
  const bool east = d.neighbour(Side::east).has_value() && columns > 1;
  // Local rows and columns 1..rows and 1..columns are the block's.
  const int first_row = south ? 2 : 1;
  const int inner_rows = rows - (south ? 1 : 0) - (north ? 1 : 0);
  const int first_column = west ? 2 : 1;
  const int inner_columns = columns - (west ? 1 : 0) - (east ? 1 : 0);
  add_sweep(graph, d, current, next, {first_row, inner_rows, first_column, inner_columns}, "sweep inside");
  exchange.add_to(graph, tag_base);
  if (south) add_sweep(graph, d, current, next, {1, 1, 1, columns}, "sweep south row");
  if (north) add_sweep(graph, d, current, next, {rows, 1, 1, columns}, "sweep north row");
  if (west) add_sweep(graph, d, current, next, {first_row, inner_rows, 1, 1}, "sweep west column");
  if (east) add_sweep(graph, d, current, next, {first_row, inner_rows, columns, 1}, "sweep east column");
}

}  // namespace

float boundary_value(int /*column*/, int row, int size) { return row == size ? 1.0f : 0.0f; }

Solution solve(alloy::Executor& executor, alloy::Device& device, const alloy::mpi::Communicator& world,
               const BlockDecomposition& d, const Settings& settings) {
  alloy::Buffer<float> current(device, d.local_elements());
  alloy::Buffer<float> next(device, d.local_elements());
  const alloy::mpi::GridBlock block = d.block();
  // Global cells -1 and size are the fixed boundary; the halo beside a
  // neighbour is overwritten by every exchange.
  for (int row = block.first_row - 1; row <= block.first_row + block.rows; ++row) {
    for (int column = block.first_column - 1; column <= block.first_column + block.columns; ++column) {
      const std::size_t at = d.local_index(column, row);
      current.host()[at] = next.host()[at] = boundary_value(column, row, settings.size);
    }
  }
  const alloy::mpi::HaloExchange exchange_current(world, d, current);
  const alloy::mpi::HaloExchange exchange_next(world, d, next);
  alloy::Graph graph;
  add_step(graph, d, exchange_current, current, next, 0, settings.overlap);
  add_step(graph, d, exchange_next, next, current, 4, settings.overlap);
  executor.run(graph);
  executor.synchronize(current);
  MPI_Barrier(world.handle());  // every rank starts the timed sweeps together
  const auto started = std::chrono::steady_clock::now();
  for (int i = 1; i < settings.iterations / 2; ++i) executor.run(graph);
  executor.synchronize(current);
  alloy::mpi::wait_or_abort(executor, world);
  Solution solution;
  solution.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  std::vector<float>& cells = solution.cells;
  cells.resize(static_cast<std::size_t>(block.rows * block.columns));
  for (int row = 0; row < block.rows; ++row) {
    for (int column = 0; column < block.columns; ++column) {
      cells[static_cast<std::size_t>(row * block.columns + column)] =
          current.host()[d.local_index(block.first_column + column, block.first_row + row)];
    }
  }
  return solution;
}

std::vector<float> solve_on_host(const Settings& settings) {
  const int n = settings.size;
  const int local = n + 2;
  std::vector<float> current(static_cast<std::size_t>(local * local));
  for (int row = -1; row <= n; ++row) {
    for (int column = -1; column <= n; ++column) {
      current[static_cast<std::size_t>((row + 1) * local + column + 1)] = boundary_value(column, row, n);
    }
  }
  std::vector<float> next = current;
  for (int i = 0; i < settings.iterations; ++i) {
    for (int row = 1; row <= n; ++row) {
      for (int column = 1; column <= n; ++column) {
        const std::size_t at = static_cast<std::size_t>(row * local + column);
        const float sum = ((current[at - local] + current[at + local]) + current[at - 1]) + current[at + 1];
        next[at] = sum * 0.25f;
      }
    }
    current.swap(next);
  }
  std::vector<float> cells(static_cast<std::size_t>(n * n));
  for (int row = 0; row < n; ++row) {
    for (int column = 0; column < n; ++column) {
      cells[static_cast<std::size_t>(row * n + column)] = current[static_cast<std::size_t>((row + 1) * local + column + 1)];
    }
  }
  return cells;
}

}  // namespace jacobi
