// Tuning spaces: enumeration against brute force, lookups, device limits.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "alloy/autotune/search_space.hpp"
#include "alloy/error.hpp"

namespace {

using alloy::Configuration;
using alloy::DeviceLimits;
using alloy::Extent;
using alloy::TunableKernel;
using alloy::TuningConstraint;
using alloy::autotune::SearchSpace;

// A gemm-like space: tiles, threads per tile, vector width, caching switch.
TunableKernel tiled_kernel() {
  TunableKernel kernel;
  kernel.name = "test.tiled";
  kernel.kernel_name = "tiled";
  kernel.parameters = {{"TILE", {8, 16, 32, 64, 128}, 16, {}},
                       {"THREADS", {1, 2, 4, 8, 16, 32}, 4, {}},
                       {"VECTOR", {1, 2, 4, 8}, 1, {}},
                       {"CACHE", {0, 1}, 0, {"off", "on"}}};
  kernel.constraints = {
      // THREADS * VECTOR divides TILE
      {TuningConstraint::Kind::divides, {1, {"THREADS", "VECTOR"}, {}}, {1, {"TILE"}, {}}},
      // TILE divides the problem's x
      {TuningConstraint::Kind::divides, {1, {"TILE"}, {}}, {1, {}, {0}}},
  };
  kernel.launch = {{0, {1, {"THREADS"}, {}}, {1, {"TILE"}, {}}, {1, {"THREADS"}, {}}},
                   {1, {1, {"THREADS"}, {}}, {1, {"TILE"}, {}}, {1, {"THREADS"}, {}}}};
  kernel.local_memory_bytes = {{4, {"CACHE", "TILE", "TILE"}, {}}};
  return kernel;
}

std::size_t brute_force_count(const TunableKernel& kernel, const Extent& problem,
                              const DeviceLimits& limits) {
  std::size_t valid = 0;
  Configuration configuration(kernel.parameters.size());
  std::vector<std::size_t> levels(kernel.parameters.size(), 0);
  while (true) {
    for (std::size_t p = 0; p < levels.size(); ++p) {
      configuration[p] = kernel.parameters[p].values[levels[p]];
    }
    if (!alloy::check_configuration(kernel, configuration, problem, limits)) ++valid;
    std::size_t p = levels.size();
    while (p-- > 0) {
      if (++levels[p] < kernel.parameters[p].values.size()) break;
      levels[p] = 0;
    }
    if (p == static_cast<std::size_t>(-1)) return valid;
  }
}

}  // namespace

TEST_CASE("Autotune.Space.counts_match_brute_force") {
  const TunableKernel kernel = tiled_kernel();
  const std::vector<DeviceLimits> limits_to_try = {
      {4096, {4096, 4096, 4096}, 1 << 20},  // roomy
      {256, {256, 256, 64}, 16384},         // GPU-like
      {64, {64, 8, 8}, 4096},               // tight: dimension limits cut too
  };
  for (const Extent problem : {Extent(256, 256), Extent(96, 96), Extent(8, 8), Extent(7, 7)}) {
    for (const DeviceLimits& limits : limits_to_try) {
      const SearchSpace space(kernel, problem, limits);
      CAPTURE(problem.to_string());
      CAPTURE(limits.max_work_group_size);
      CHECK(space.raw_size() == 5 * 6 * 4 * 2);
      CHECK(space.size() == brute_force_count(kernel, problem, limits));
      // Every enumerated point is valid, distinct, and found again by value.
      for (std::size_t point = 0; point < space.size(); ++point) {
        const Configuration configuration = space.configuration(point);
        CHECK_FALSE(alloy::check_configuration(kernel, configuration, problem, limits));
        CHECK(space.find(configuration) == point);
        const std::vector<std::size_t> levels = space.levels(point);
        CHECK(space.find(levels) == point);
      }
    }
  }
  // Nothing divides 7: the space is empty, and says so by its size.
  CHECK(SearchSpace(kernel, Extent(7, 7), {4096, {4096, 4096, 4096}, 1 << 20}).size() == 0);
}

TEST_CASE("Autotune.Space.random_spaces_match_brute_force") {
  // Random value lists and constraints, seeded; the seed is in the output.
  const unsigned seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 random(seed);
  for (int round = 0; round < 50; ++round) {
    TunableKernel kernel;
    kernel.name = "test.random";
    kernel.kernel_name = "k";
    const int parameter_count = 1 + static_cast<int>(random() % 5);
    for (int p = 0; p < parameter_count; ++p) {
      alloy::TuningParameter parameter{"P" + std::to_string(p), {}, 0, {}};
      const int value_count = 1 + static_cast<int>(random() % 6);
      for (int v = 0; v < value_count; ++v) parameter.values.push_back(1 << (random() % 7));
      std::sort(parameter.values.begin(), parameter.values.end());
      parameter.values.erase(std::unique(parameter.values.begin(), parameter.values.end()),
                             parameter.values.end());
      parameter.default_value = parameter.values.front();
      kernel.parameters.push_back(parameter);
    }
    auto random_product = [&] {
      alloy::ParameterProduct product{1, {}, {}};
      const int terms = static_cast<int>(random() % 3);
      for (int t = 0; t < terms; ++t) product.parameters.push_back("P" + std::to_string(random() % parameter_count));
      if (random() % 4 == 0) product.factor = 1 << (random() % 5);
      return product;
    };
    const int constraint_count = static_cast<int>(random() % 4);
    for (int c = 0; c < constraint_count; ++c) {
      kernel.constraints.push_back({static_cast<TuningConstraint::Kind>(random() % 3),
                                    random_product(), random_product()});
    }
    kernel.launch = {{0, {}, {}, random_product()}};
    const DeviceLimits limits{static_cast<std::size_t>(1) << (random() % 10), {4096, 4096, 4096}, 0};
    const SearchSpace space(kernel, Extent(1024), limits);
    CAPTURE(round);
    CHECK(space.size() == brute_force_count(kernel, Extent(1024), limits));
  }
}

TEST_CASE("Autotune.Space.rejects_inconsistent_descriptions") {
  TunableKernel kernel = tiled_kernel();
  kernel.constraints.push_back({TuningConstraint::Kind::at_most, {1, {"NOPE"}, {}}, {64, {}, {}}});
  CHECK_THROWS_AS(SearchSpace(kernel, Extent(64, 64), {}), alloy::InvalidArgument);
  kernel = tiled_kernel();
  kernel.parameters[0].default_value = 3;
  CHECK_THROWS_AS(SearchSpace(kernel, Extent(64, 64), {}), alloy::InvalidArgument);
  kernel = tiled_kernel();
  kernel.launch.clear();
  CHECK_THROWS_AS(SearchSpace(kernel, Extent(64, 64), {}), alloy::InvalidArgument);
  kernel = tiled_kernel();
  for (int p = 0; p < 40; ++p) {
    kernel.parameters.push_back({"WIDE" + std::to_string(p), {1, 2, 3, 4}, 1, {}});
  }
  CHECK_THROWS_AS(SearchSpace(kernel, Extent(64, 64), {}), alloy::InvalidArgument);
}

TEST_CASE("Autotune.Space.launch_geometry_follows_configuration") {
  const TunableKernel kernel = tiled_kernel();
  const SearchSpace space(kernel, Extent(256, 128), {1024, {1024, 1024, 1024}, 1 << 16});
  const std::optional<std::size_t> point = space.find(Configuration{64, 8, 2, 1});
  REQUIRE(point);
  const alloy::LaunchRange range = alloy::configured_launch(kernel, space.configuration(*point),
                                                            space.problem());
  CHECK(range.global.size[0] == 256 / 64 * 8);
  CHECK(range.global.size[1] == 128 / 64 * 8);
  CHECK(range.local->size[0] == 8);
  CHECK(alloy::configured_source(kernel, space.configuration(*point)).options ==
        "-DTILE=64 -DTHREADS=8 -DVECTOR=2 -DCACHE=1");
  CHECK(alloy::describe(kernel, space.configuration(*point)) == "TILE=64 THREADS=8 VECTOR=2 CACHE=on");
  // 64*64*4 bytes of cache does not fit in 8 KiB of local memory.
  CHECK(SearchSpace(kernel, Extent(256, 128), {1024, {1024, 1024, 1024}, 8192})
            .find(Configuration{64, 8, 2, 1}) == std::nullopt);
}

TEST_CASE("Autotune.Space.local_size_zero_leaves_the_group_to_the_driver") {
  TunableKernel kernel;
  kernel.name = "test.driver_local";
  kernel.kernel_name = "k";
  kernel.parameters = {{"WGS", {0, 32, 64}, 0, {"driver", "32", "64"}}};
  kernel.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
  const DeviceLimits limits{1024, {1024, 1024, 1024}, 1 << 16};
  const SearchSpace space(kernel, Extent(1000), limits);
  CHECK(space.size() == 3);  // WGS = 0 is a configuration like the others
  const alloy::LaunchRange chosen_by_driver = alloy::configured_launch(kernel, {0}, Extent(1000));
  CHECK_FALSE(chosen_by_driver.local);
  CHECK(chosen_by_driver.global.size[0] == 1000);  // not rounded up to any group
  const alloy::LaunchRange fixed = alloy::configured_launch(kernel, {64}, Extent(1000));
  CHECK(fixed.global.size[0] == 1024);
  CHECK(fixed.local->size[0] == 64);

  // 0 in one dimension only cannot be launched: refused, with the reason.
  kernel.launch.push_back({1, {}, {}, {8, {}, {}}});
  const std::optional<std::string> why = alloy::check_configuration(kernel, {0}, Extent(1000, 8), limits);
  REQUIRE(why);
  CHECK(why->find("must be 0 in every dimension") != std::string::npos);
  CHECK_FALSE(alloy::check_configuration(kernel, {32}, Extent(1000, 8), limits));
}
