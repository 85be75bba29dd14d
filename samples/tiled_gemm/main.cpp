// Multiplies two square matrices tile by tile as one task graph spread over
// every device alloy finds, then checks the product on the host.
//
//   tiled_gemm [--size N] [--tile T]     (defaults: N = 512, T = 128)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "alloy/alloy.hpp"
#include "embedded/gemm_tile_source.hpp"

namespace {

// How the executor picks a device for each tile task: where it is predicted
// to finish first, from measured kernel times and the transfers of tiles the
// device lacks. (least_loaded keeps every device fed without measuring.)
constexpr alloy::SchedulingPolicy scheduling_policy = alloy::SchedulingPolicy::earliest_finish_time;

// Work-group edge: 16 x 16 = 256 work-items, which every backend accepts.
constexpr std::size_t work_group_edge = 16;

// Largest relative error accepted against the double-precision reference.
// Products are summed in float on the device, tile by tile, so the result
// is not bit-identical; a wrong or missing tile gives errors near 1.
constexpr double tolerance = 1e-3;

struct Settings {
  int size = 512;
  int tile = 128;
};

/// Parses --size N and --tile T; returns false (after printing why) on bad input.
bool parse(int argc, char** argv, Settings& settings) {
  for (int i = 1; i < argc; ++i) {
    const bool is_size = std::strcmp(argv[i], "--size") == 0;
    const bool is_tile = std::strcmp(argv[i], "--tile") == 0;
    if (!is_size && !is_tile) {
      std::fprintf(stderr, "tiled_gemm: unexpected argument '%s'\n", argv[i]);
      return false;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "tiled_gemm: %s needs a value\n", argv[i]);
      return false;
    }
    // At most 32768: the kernel indexes with int, and 32768^2 elements still fit.
    char* end = nullptr;
    const long value = std::strtol(argv[++i], &end, 10);
    if (*end != '\0' || value <= 0 || value > 1 << 15) {
      std::fprintf(stderr, "tiled_gemm: '%s' is not a size between 1 and 32768\n", argv[i]);
      return false;
    }
    (is_size ? settings.size : settings.tile) = static_cast<int>(value);
  }
  if (settings.size % settings.tile != 0) {
    std::fprintf(stderr, "tiled_gemm: the tile (%d) must divide the size (%d)\n", settings.tile,
                 settings.size);
    return false;
  }
  return true;
}

/// Row-major n x n values in [-1, 1) from a fixed-seed xorshift, so every
/// run and every platform multiplies the same matrices.
std::vector<float> random_matrix(int n, std::uint32_t seed) {
  std::vector<float> values(static_cast<std::size_t>(n) * n);
  std::uint32_t state = seed;
  for (float& value : values) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    value = static_cast<float>(state >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
  }
  return values;
}

/// Index in the tiled layout of row-major element (row, col): tiles are
/// stored one after another, row by row of tiles, each tile row-major.
std::size_t tiled_index(int n, int t, int row, int col) {
  const std::size_t tiles = n / t;
  const std::size_t tile = (row / t) * tiles + (col / t);
  return tile * t * t + static_cast<std::size_t>(row % t) * t + (col % t);
}

std::vector<float> to_tiled(const std::vector<float>& matrix, int n, int t) {
  std::vector<float> tiled(matrix.size());
  for (int row = 0; row < n; ++row) {
    for (int col = 0; col < n; ++col) tiled[tiled_index(n, t, row, col)] = matrix[row * n + col];
  }
  return tiled;
}

/// The reference product in double, on the untiled matrices (i-k-j order:
/// still the naive triple loop, but it walks memory row by row).
std::vector<double> reference_product(const std::vector<float>& a, const std::vector<float>& b,
                                      int n) {
  std::vector<double> c(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < n; ++k) {
      const double a_ik = a[i * n + k];
      for (int j = 0; j < n; ++j) c[i * n + j] += a_ik * b[k * n + j];
    }
  }
  return c;
}

/// The largest |c - exact| / max(|exact|, 1) over all elements, c being in
/// the tiled layout; dividing by at least 1 keeps entries near zero from
/// turning rounding noise into large ratios. NaN if any element is NaN.
double max_relative_error(std::span<const float> c_tiled, const std::vector<double>& expected, int n,
                          int t) {
  double max_error = 0.0;
  for (int row = 0; row < n; ++row) {
    for (int col = 0; col < n; ++col) {
      const double exact = expected[row * n + col];
      const double error = std::fabs(c_tiled[tiled_index(n, t, row, col)] - exact) /
                           std::max(1.0, std::fabs(exact));
      if (std::isnan(error)) return error;
      max_error = std::max(max_error, error);
    }
  }
  return max_error;
}

/// One graph for the whole product: C(i,j) += A(i,k) * B(k,j) for every tile
/// triple. The tasks on one C tile form a chain through their read_write
/// access; different C tiles share only reads, so the executor may run them
/// at once on different devices.
alloy::Graph build_graph(const alloy::Buffer<float>& a, const alloy::Buffer<float>& b,
                         const alloy::Buffer<float>& c, int n, int t) {
  const alloy::ProgramSource source{"gemm_tile.cl", std::string(alloy_kernels::gemm_tile_source), ""};
  const int tiles = n / t;
  const std::size_t tile_elements = static_cast<std::size_t>(t) * t;
  // The global size is rounded up to whole work-groups; the kernel skips the rest.
  const std::size_t global = (t + work_group_edge - 1) / work_group_edge * work_group_edge;
  const alloy::LaunchRange range{alloy::Extent(global, global),
                                 alloy::Extent(work_group_edge, work_group_edge)};
  auto offset = [&](int row, int col) { return static_cast<std::size_t>(row * tiles + col) * tile_elements; };

  alloy::Graph graph;
  for (int i = 0; i < tiles; ++i) {
    for (int j = 0; j < tiles; ++j) {
      for (int k = 0; k < tiles; ++k) {
        alloy::TaskOptions options;
        options.name = "C(" + std::to_string(i) + "," + std::to_string(j) + ") += A(" +
                       std::to_string(i) + "," + std::to_string(k) + ") B(" + std::to_string(k) +
                       "," + std::to_string(j) + ")";
        // The kernel receives whole buffers, so it is told where its tiles start;
        // the slices tell the executor which bytes the task touches.
        graph.kernel(source, "gemm_tile", range,
                     {t, static_cast<int>(offset(i, k)), static_cast<int>(offset(k, j)),
                      static_cast<int>(offset(i, j)),
                      alloy::read(a.slice(offset(i, k), tile_elements)),
                      alloy::read(b.slice(offset(k, j), tile_elements)),
                      alloy::read_write(c.slice(offset(i, j), tile_elements))},
                     std::move(options));
      }
    }
  }
  return graph;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  if (!parse(argc, argv, settings)) {
    std::fprintf(stderr, "usage: tiled_gemm [--size N] [--tile T]  (T must divide N)\n");
    return 2;
  }
  const int n = settings.size;
  const int t = settings.tile;

  alloy::Runtime runtime;
  if (runtime.devices().empty()) {
    std::fprintf(stderr, "tiled_gemm: no devices found; run alloy-info to see why\n");
    return 1;
  }

  const std::vector<float> a = random_matrix(n, 0x12345678u);
  const std::vector<float> b = random_matrix(n, 0x9abcdef0u);
  const std::vector<float> a_tiled = to_tiled(a, n, t);
  const std::vector<float> b_tiled = to_tiled(b, n, t);
  alloy::Buffer<float> a_buffer{std::span<const float>(a_tiled)};
  alloy::Buffer<float> b_buffer{std::span<const float>(b_tiled)};
  alloy::Buffer<float> c_buffer(static_cast<std::size_t>(n) * n);  // zeroed: the tasks accumulate

  alloy::ExecutorOptions options;  // no devices named: every device of the runtime
  options.policy = scheduling_policy;
  try {
    alloy::Executor executor(runtime, options);
    const alloy::Graph graph = build_graph(a_buffer, b_buffer, c_buffer, n, t);
    const auto start = std::chrono::steady_clock::now();
    executor.run(graph);
    executor.synchronize(c_buffer);
    executor.wait();  // throws the first failure, naming the task
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;

    const double max_error = max_relative_error(c_buffer.host(), reference_product(a, b, n), n, t);
    const bool ok = max_error <= tolerance;  // false for NaN too
    if (ok) {
      // The time includes compiling the kernel where no cache has it yet.
      std::printf("tiled_gemm N=%d tile=%d verified (max error %g), %.1f ms from submission to results\n", n, t,
                  max_error, elapsed.count());
    } else {
      std::fprintf(stderr, "tiled_gemm N=%d tile=%d WRONG (max error %g, tolerance %g)\n", n, t,
                   max_error, tolerance);
    }
    // Where the tasks ran: with several devices, the policy should spread them.
    const std::vector<std::size_t> counts = executor.tasks_per_device();
    for (std::size_t d = 0; d < counts.size(); ++d) {
      std::printf("  %-50s %zu tasks\n", executor.devices()[d]->label().c_str(), counts[d]);
    }
    return ok ? 0 : 1;
  } catch (const alloy::Error& error) {
    std::fprintf(stderr, "tiled_gemm: %s\n", error.what());
    return 1;
  }
}
