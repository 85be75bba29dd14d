// Byte-range sets, checked against a byte-per-byte model.
#include <random>

#include "support/test_devices.hpp"

namespace alloy::test {

TEST_CASE("Unit.IntervalSet.merge_split_and_gaps") {
  IntervalSet set;
  set.add({10, 20});
  set.add({20, 30});  // touching: merged
  set.add({40, 50});
  CHECK(set.ranges() == std::vector<ByteRange>{{10, 30}, {40, 50}});
  CHECK(set.contains({12, 28}));
  CHECK_FALSE(set.contains({25, 45}));
  CHECK(set.missing({0, 60}) == std::vector<ByteRange>{{0, 10}, {30, 40}, {50, 60}});
  set.remove({15, 45});
  CHECK(set.ranges() == std::vector<ByteRange>{{10, 15}, {45, 50}});
  CHECK(set.missing({10, 15}).empty());
}

TEST_CASE("Unit.IntervalSet.random_operations_match_a_bitmap") {
  const unsigned seed = 20261130;
  CAPTURE(seed);
  std::mt19937 random(seed);
  constexpr std::size_t size = 96;
  for (int round = 0; round < 200; ++round) {
    IntervalSet set;
    std::vector<bool> model(size, false);
    for (int step = 0; step < 30; ++step) {
      std::size_t a = random() % (size + 1);
      std::size_t b = random() % (size + 1);
      if (a > b) std::swap(a, b);
      const bool adding = random() % 2 == 0;
      adding ? set.add({a, b}) : set.remove({a, b});
      for (std::size_t i = a; i < b; ++i) model[i] = adding;

      std::size_t c = random() % (size + 1);
      std::size_t d = random() % (size + 1);
      if (c > d) std::swap(c, d);
      bool all = true;
      std::vector<ByteRange> gaps;
      for (std::size_t i = c; i < d; ++i) {
        all = all && model[i];
        if (!model[i]) {
          if (!gaps.empty() && gaps.back().end == i) {
            ++gaps.back().end;
          } else {
            gaps.push_back({i, i + 1});
          }
        }
      }
      REQUIRE(set.contains({c, d}) == all);
      REQUIRE(set.missing({c, d}) == gaps);
    }
  }
}

}  // namespace alloy::test
