// Output checks: integers exactly whatever their size, floats within
// tolerances, sums and sorted compares for outputs in any order.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "alloy/autotune/verification.hpp"
#include "alloy/error.hpp"

namespace alloy::autotune {
namespace {

template <class T>
HostArray array_of(std::initializer_list<T> values) {
  HostArray array(scalar_type_of<T>(), values.size());
  std::copy(values.begin(), values.end(), array.view<T>().begin());
  return array;
}

HarnessBuffer output_with(OutputCheck check) {
  return HarnessBuffer::checked_output("out", {1, {}, {0}}, check);
}

bool contains(const std::optional<std::string>& text, const std::string& part) {
  return text && text->find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Autotune.Verification.integers_compare_exactly") {
  const HarnessBuffer buffer = output_with({});  // float tolerances, unused for integers
  // Large counts, where a relative float tolerance of 1e-4 would pass
  // anything within about 400,000.
  const HostArray expected = array_of<std::uint32_t>({4000000000u, 7u, 3000000000u, 1u});
  CHECK_FALSE(compare_output(buffer, array_of<std::uint32_t>({4000000000u, 7u, 3000000000u, 1u}), expected));
  const auto off_by_one = compare_output(buffer, array_of<std::uint32_t>({4000000001u, 7u, 3000000000u, 1u}), expected);
  CHECK(contains(off_by_one, "1 of 4 elements wrong"));
  CHECK(contains(off_by_one, "element 0 is 4000000001, expected 4000000000"));
  const auto two_wrong = compare_output(buffer, array_of<std::uint32_t>({4000000000u, 7u, 3000001024u, 0u}), expected);
  CHECK(contains(two_wrong, "2 of 4 elements wrong; first at element 2 is 3000001024"));

  // Every integer width, signed values printed as numbers, not characters.
  CHECK(contains(compare_output(buffer, array_of<std::int8_t>({-3, 5}), array_of<std::int8_t>({-3, 4})),
                 "element 1 is 5, expected 4"));
  CHECK(contains(compare_output(buffer, array_of<std::uint8_t>({255}), array_of<std::uint8_t>({254})),
                 "is 255, expected 254"));
  const std::int64_t big = std::int64_t{1} << 60;
  CHECK(compare_output(buffer, array_of<std::int64_t>({big + 1}), array_of<std::int64_t>({big})));
  CHECK_FALSE(compare_output(buffer, array_of<std::int64_t>({big}), array_of<std::int64_t>({big})));
  CHECK(compare_output(buffer, array_of<std::uint64_t>({~std::uint64_t{0}}), array_of<std::uint64_t>({~std::uint64_t{0} - 1})));
  CHECK(compare_output(buffer, array_of<std::int16_t>({-1}), array_of<std::int16_t>({1})));
}

TEST_CASE("Autotune.Verification.floats_within_relative_and_absolute_tolerance") {
  const HarnessBuffer buffer = output_with({OutputCheck::Kind::elements, 1e-3, 1e-6});
  const HostArray expected = array_of<float>({1000.0f, 0.0f, -2.0f});
  CHECK_FALSE(compare_output(buffer, array_of<float>({1000.9f, 0.0000009f, -2.0015f}), expected));
  CHECK(contains(compare_output(buffer, array_of<float>({1001.1f, 0.0f, -2.0f}), expected), "element 0"));
  CHECK(contains(compare_output(buffer, array_of<float>({1000.0f, 0.00001f, -2.0f}), expected), "element 1"));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(contains(compare_output(buffer, array_of<float>({1000.0f, nan, -2.0f}), expected), "1 of 3"));
  const HarnessBuffer exact = output_with({OutputCheck::Kind::elements, 0, 0});
  CHECK(compare_output(exact, array_of<double>({1.0 + 1e-15}), array_of<double>({1.0})));
  CHECK_FALSE(compare_output(exact, array_of<double>({1.0}), array_of<double>({1.0})));
}

TEST_CASE("Autotune.Verification.sum_and_sorted_accept_any_order") {
  const HarnessBuffer sum = output_with({OutputCheck::Kind::sum, 0, 0});
  const HarnessBuffer sorted = output_with({OutputCheck::Kind::sorted, 0, 0});
  const HostArray expected = array_of<std::int32_t>({5, -2, 9, 0});
  const HostArray permuted = array_of<std::int32_t>({9, 0, 5, -2});
  CHECK_FALSE(compare_output(sum, permuted, expected));
  CHECK_FALSE(compare_output(sorted, permuted, expected));
  // Off by one count in one bin.
  CHECK(contains(compare_output(sum, array_of<std::int32_t>({9, 1, 5, -2}), expected), "the sum is 13, expected 12"));
  // The same sum, other values: only sorted sees it.
  const HostArray same_sum = array_of<std::int32_t>({6, -3, 9, 0});
  CHECK_FALSE(compare_output(sum, same_sum, expected));
  CHECK(contains(compare_output(sorted, same_sum, expected), "2 of 4 elements wrong; first at sorted position 0"));
  // Integer sums wrap as on the device and still compare exactly.
  const HostArray wrapping = array_of<std::uint32_t>({0xffffffffu, 2u});
  CHECK_FALSE(compare_output(sum, array_of<std::uint32_t>({2u, 0xffffffffu}), wrapping));
  CHECK(compare_output(sum, array_of<std::uint32_t>({3u, 0xffffffffu}), wrapping));
  // Float sums within the tolerance of the summed magnitudes.
  const HarnessBuffer float_sum = output_with({OutputCheck::Kind::sum, 1e-6, 0});
  CHECK_FALSE(compare_output(float_sum, array_of<float>({2.0f, 1.0f}), array_of<float>({1.0f, 2.0f})));
  CHECK(compare_output(float_sum, array_of<float>({2.0f, 1.001f}), array_of<float>({1.0f, 2.0f})));
}

TEST_CASE("Autotune.Verification.mismatched_arrays_and_views_are_refused") {
  const HarnessBuffer buffer = output_with({});
  CHECK_THROWS_AS(compare_output(buffer, array_of<float>({1.0f}), array_of<std::int32_t>({1})), InvalidArgument);
  CHECK_THROWS_AS(compare_output(buffer, array_of<float>({1.0f}), array_of<float>({1.0f, 2.0f})), InvalidArgument);
  HostArray counts(ScalarType::u32, 4);
  CHECK_THROWS_AS(counts.view<float>(), InvalidArgument);
  CHECK(counts.view<std::uint32_t>().size() == 4);
  CHECK(scalar_type_from_string("uint") == ScalarType::u32);
  CHECK_FALSE(scalar_type_from_string("uint32"));
  for (ScalarType type : {ScalarType::f32, ScalarType::u8, ScalarType::i64}) {
    CHECK(scalar_type_from_string(to_string(type)) == type);
  }
}

}  // namespace alloy::autotune
