// Conformance: a launch run as slices (LaunchRange::slice) computes what the
// whole launch computes, on every device.
#include <algorithm>
#include <random>

#include "embedded/conformance_source.hpp"
#include "embedded/slices_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

/// What mark_items leaves in an item that one work-item wrote once.
std::uint32_t marked(const LaunchRange& range, std::size_t x, std::size_t y, std::size_t z) {
  const Extent& local = *range.local;
  const std::uint32_t word = static_cast<std::uint32_t>(x / local[0] * 7919u + y / local[1] * 104729u +
                                                        z / local[2] * 15485863u + x % local[0] * 3u +
                                                        y % local[1] * 5u + z % local[2] * 11u);
  return word + 1u;
}

/// A random range of one to three dimensions, at most 64 work-items per group.
LaunchRange random_range(std::mt19937& random) {
  const unsigned dimensions = 1 + random() % 3;
  const std::size_t most_groups[] = {300, 24, 7};
  std::array<std::size_t, 3> local{1, 1, 1};
  std::array<std::size_t, 3> global{1, 1, 1};
  for (unsigned d = 0; d < dimensions; ++d) {
    local[d] = std::size_t{1} << (random() % (d == 0 ? 7 : 3));  // up to 64, 4, 4
    global[d] = local[d] * (1 + random() % most_groups[dimensions - 1]);
  }
  const auto extent = [&](const std::array<std::size_t, 3>& size) {
    return dimensions == 1 ? Extent(size[0]) : dimensions == 2 ? Extent(size[0], size[1]) : Extent(size[0], size[1], size[2]);
  };
  return LaunchRange(extent(global), extent(local));
}

/// The range's work-groups along `dimension`, cut at random into slices.
std::vector<LaunchRange> random_slices(const LaunchRange& range, unsigned dimension, std::mt19937& random) {
  std::vector<LaunchRange> slices;
  const std::size_t groups = range.groups(dimension);
  for (std::size_t first = 0; first < groups;) {
    const std::size_t count = 1 + random() % std::min<std::size_t>(groups - first, 1 + groups / 3);
    slices.push_back(range.slice(dimension, first, count));
    first += count;
  }
  std::shuffle(slices.begin(), slices.end(), random);
  return slices;
}

}  // namespace

TEST_CASE("Conformance.Slices.cover_every_work_group_once_as_the_whole_launch_does") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    const auto program = runtime().program(device, {"slices.cl", std::string(alloy_kernels::slices_source), ""});
    REQUIRE(program->sliceable());
    const auto kernel = program->kernel("mark_items");
    for (unsigned seed = 1; seed <= 24; ++seed) {
      CAPTURE(seed);
      std::mt19937 random(seed);
      const LaunchRange range = random_range(random);
      const unsigned dimension = random() % range.global.dimensions;
      CAPTURE(range.global.to_string());
      CAPTURE(range.local->to_string());
      CAPTURE(dimension);
      const std::size_t items = range.global.count();
      const auto width = static_cast<std::uint32_t>(range.global[0]);
      const auto height = static_cast<std::uint32_t>(range.global[1]);
      const std::uint32_t zero = 0;

      auto whole = device.allocate(items * sizeof(std::uint32_t));
      queue->fill(*whole, 0, &zero, sizeof zero, items * sizeof zero);
      queue->launch(*kernel, range, *whole, width, height);
      auto sliced = device.allocate(items * sizeof(std::uint32_t));
      queue->fill(*sliced, 0, &zero, sizeof zero, items * sizeof zero);
      const std::vector<LaunchRange> slices = random_slices(range, dimension, random);
      CAPTURE(slices.size());
      for (const LaunchRange& slice : slices) queue->launch(*kernel, slice, *sliced, width, height);

      const std::vector<std::uint32_t> expected_whole = download<std::uint32_t>(*queue, *whole, items);
      const std::vector<std::uint32_t> got = download<std::uint32_t>(*queue, *sliced, items);
      for (std::size_t z = 0; z < range.global[2]; ++z) {
        for (std::size_t y = 0; y < range.global[1]; ++y) {
          for (std::size_t x = 0; x < range.global[0]; ++x) {
            const std::size_t index = (z * range.global[1] + y) * range.global[0] + x;
            REQUIRE(expected_whole[index] == marked(range, x, y, z));
            REQUIRE(got[index] == expected_whole[index]);
          }
        }
      }
    }
  });
}

TEST_CASE("Conformance.Slices.a_program_that_reads_across_work_groups_refuses_them") {
  for_each_device([](Device& device) {
    // conformance.cl has atomics and reads get_num_groups: it runs whole only.
    const auto kernel = conformance_kernel(device, "index_2d");
    CHECK_FALSE(kernel->program().sliceable());
    auto queue = device.create_queue();
    auto out = device.allocate(64 * sizeof(int));
    auto groups = device.allocate(64 * sizeof(int));
    const LaunchRange range(Extent(8, 8), Extent(4, 4));
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, range.slice(1, 1, 1), 8, 8, *out, *groups),
                         doctest::Contains("cannot run in slices"), InvalidArgument);
  });
}

}  // namespace alloy::test
