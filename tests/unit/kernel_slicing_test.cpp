// How the executor cuts a long launch into slices, and where the slice time
// comes from.
#include <random>
#include <set>

#include "executor/kernel_slicing.hpp"
#include "sharing/slice_time.hpp"
#include "support/scoped_environment.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {

using detail::KernelSlicing;
using detail::slicing_for;
using namespace std::chrono_literals;

TEST_CASE("Unit.KernelSlicing.whole_unless_long_with_a_local_size_and_groups_to_cut") {
  const LaunchRange range(Extent(4096), Extent(64));  // 64 groups
  CHECK_FALSE(slicing_for(range, std::nullopt, 100us, 1).sliced());
  CHECK_FALSE(slicing_for(range, 199e-6, 100us, 1).sliced());
  CHECK_FALSE(slicing_for(LaunchRange(Extent(4096)), 1.0, 100us, 1).sliced());
  CHECK_FALSE(slicing_for(range, 1.0, 100us, 64).sliced());  // one slice's worth of groups
  CHECK(slicing_for(range, 200e-6, 100us, 1).count == 2);
  CHECK(slicing_for(range, 1e-3, 100us, 1).count == 10);
  CHECK(slicing_for(range, 1.0, 100us, 1).count == 64);  // one group each at most
  CHECK(slicing_for(range, 1.0, 100us, 8).count == 8);   // each slice fills 8 compute units
  // Along the dimension with the most groups.
  CHECK(slicing_for(LaunchRange(Extent(64, 4096), Extent(8, 8)), 1e-3, 100us, 1).dimension == 1);
  CHECK(slicing_for(LaunchRange(Extent(4096, 64), Extent(8, 8)), 1e-3, 100us, 1).dimension == 0);
}

TEST_CASE("Unit.KernelSlicing.slices_cover_every_group_once") {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    CAPTURE(seed);
    std::mt19937 random(seed);
    const std::size_t local = 1 + random() % 16;
    const std::size_t groups[2] = {1 + random() % 300, 1 + random() % 40};
    const LaunchRange range(Extent(groups[0] * local, groups[1] * 2), Extent(local, 2));
    const KernelSlicing slicing = slicing_for(range, 1e-6 * static_cast<double>(random() % 5000), 10us, 1 + random() % 4);
    const unsigned d = slicing.dimension;
    std::size_t next = 0;
    for (std::size_t i = 0; i < slicing.count; ++i) {
      const LaunchRange slice = slicing.slice(range, i);
      REQUIRE(slice.first_group[d] == next);
      REQUIRE(slice.groups(d) >= 1);
      REQUIRE(slice.global[1 - d] == range.global[1 - d]);
      next += slice.groups(d);
    }
    REQUIRE(next == range.groups(d));
  }
}

TEST_CASE("Unit.SliceTime.the_option_then_the_environment_then_the_default") {
  ScopedEnvironment unset("ALLOY_SLICE_MS", "");
  CHECK(detail::slice_time_or_environment(std::nullopt) == detail::default_slice_time);
  CHECK(detail::slice_time_or_environment(250us) == 250us);
  CHECK_THROWS_WITH_AS(detail::slice_time_or_environment(0us), doctest::Contains("slice_time"), InvalidArgument);
  {
    ScopedEnvironment set("ALLOY_SLICE_MS", "0.25");
    CHECK(detail::slice_time_or_environment(std::nullopt) == 250us);
    CHECK(detail::slice_time_or_environment(1000us) == 1000us);
  }
  for (const char* bad : {"0", "-1", "fast", "1ms", "0.0001"}) {
    CAPTURE(bad);
    ScopedEnvironment set("ALLOY_SLICE_MS", bad);
    CHECK_THROWS_WITH_AS(detail::slice_time_or_environment(std::nullopt), doctest::Contains("ALLOY_SLICE_MS"),
                         InvalidArgument);
  }
}

}  // namespace alloy::test
