// (e) Enumerating tuning spaces: a synthetic space of 10^6 raw points with
// constraints, and gemm's space on this device.
#include <algorithm>
#include <chrono>

#include "alloy/autotune/search_space.hpp"
#include "alloy/kernel_library.hpp"
#include "bench_autotune.hpp"

namespace alloy::bench {
namespace {

// Median wall seconds of five enumerations, and the valid points found.
std::pair<double, std::size_t> time_enumeration(const TunableKernel& kernel, const Extent& problem,
                                                const DeviceLimits& limits) {
  std::vector<double> seconds;
  std::size_t size = 0;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const autotune::SearchSpace space(kernel, problem, limits);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    size = space.size();
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds[2], size};
}

}  // namespace

nlohmann::json space_generation(Device& device) {
  // Six parameters of ten values: 10^6 raw points, a gemm-like set of
  // divisibility and size constraints.
  TunableKernel synthetic;
  synthetic.name = "bench.synthetic";
  synthetic.kernel_name = "synthetic";
  for (const char* name : {"TM", "TN", "WM", "WN", "KW", "VW"}) {
    synthetic.parameters.push_back({name, {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}, 1, {}});
  }
  using Kind = TuningConstraint::Kind;
  synthetic.constraints = {{Kind::divides, {1, {"WM", "VW"}, {}}, {1, {"TM"}, {}}},
                           {Kind::divides, {1, {"WN"}, {}}, {1, {"TN"}, {}}},
                           {Kind::at_most, {1, {"KW", "VW"}, {}}, {64, {}, {}}}};
  synthetic.launch = {{0, {1, {"WM"}, {}}, {1, {"TM"}, {}}, {1, {"WM"}, {}}},
                      {1, {1, {"WN"}, {}}, {1, {"TN"}, {}}, {1, {"WN"}, {}}}};
  synthetic.local_memory_bytes = {{4, {"TM", "KW"}, {}}, {4, {"TN", "KW"}, {}}};
  const auto [synthetic_seconds, synthetic_size] =
      time_enumeration(synthetic, Extent(4096, 4096), {1024, {1024, 1024, 64}, 48 * 1024});

  const TunableKernel& gemm = kernel_library::gemm();
  const auto [gemm_seconds, gemm_size] =
      time_enumeration(gemm, Extent(1024, 1024, 1024), DeviceLimits::of(device.info()));
  return {{"synthetic_raw_points", 1000000},
          {"synthetic_valid_points", synthetic_size},
          {"synthetic_seconds", synthetic_seconds},
          {"gemm_raw_points", autotune::SearchSpace(gemm, Extent(1024, 1024, 1024), DeviceLimits::of(device.info())).raw_size()},
          {"gemm_valid_points", gemm_size},
          {"gemm_seconds", gemm_seconds}};
}

}  // namespace alloy::bench
