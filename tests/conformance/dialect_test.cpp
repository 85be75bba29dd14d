// Conformance of the dialect's atomics and vectors (tests/kernels/dialect.cl):
// every integer result is checked exactly against the host.
#include <algorithm>
#include <cstdint>
#include <random>

#include "embedded/dialect_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

std::shared_ptr<Kernel> dialect_kernel(Device& device, const std::string& name) {
  return runtime().program(device, {"dialect.cl", std::string(alloy_kernels::dialect_source), ""})->kernel(name);
}

// As the kernel computes them, with the same wrap-around of 64-bit products.
std::int64_t long_value(std::uint32_t v) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) * 4294967311ull - 1099511627776ull);
}
std::uint64_t ulong_value(std::uint32_t v) { return static_cast<std::uint64_t>(v) * 4294967311ull + 7ull; }

// Random values, seeded by n so that a failure replays.
std::vector<std::uint32_t> random_values(int n) {
  std::mt19937 random(static_cast<unsigned>(n));
  std::uniform_int_distribution<std::uint32_t> value(0, 100000);
  std::vector<std::uint32_t> values(n);
  for (auto& v : values) v = value(random);
  return values;
}

template <class T>
std::unique_ptr<DeviceBuffer> upload_initial(Device& device, Queue& queue, std::vector<T> initial) {
  return upload(device, queue, initial);
}

}  // namespace

TEST_CASE("Conformance.Dialect.global_atomics_every_type") {
  for_each_device([](Device& device) {
    const int n = 5003;
    const std::vector<std::uint32_t> values = random_values(n);
    auto queue = device.create_queue();
    auto device_values = upload(device, *queue, values);
    auto ints = upload_initial<std::int32_t>(device, *queue, {0, INT32_MAX, INT32_MIN, 0, 0, 0});
    auto uints = upload_initial<std::uint32_t>(device, *queue, {0, UINT32_MAX, 0, 0, 0});
    auto longs = upload_initial<std::int64_t>(device, *queue, {0, INT64_MAX, INT64_MIN, 0});
    auto ulongs = upload_initial<std::uint64_t>(device, *queue, {0, UINT64_MAX, 0, 0});
    queue->launch(*dialect_kernel(device, "global_atomics"), {Extent(round_up(n, 64)), Extent(64)}, n,
                  *device_values, *ints, *uints, *longs, *ulongs);

    std::int64_t int_sum = 0;
    std::uint32_t uint_sum = 0;
    std::uint64_t long_sum = 0, ulong_sum = 0;
    for (std::uint32_t v : values) {
      int_sum += static_cast<std::int32_t>(v) - 1000;
      uint_sum += v;
      long_sum += static_cast<std::uint64_t>(long_value(v));
      ulong_sum += ulong_value(v);
    }
    const auto [min_v, max_v] = std::minmax_element(values.begin(), values.end());
    const std::vector<std::int32_t> int_result = download<std::int32_t>(*queue, *ints, 6);
    CHECK(int_result[0] == int_sum);  // |sum| < 2^31: no wrap
    CHECK(int_result[1] == static_cast<std::int32_t>(*min_v) - 1000);
    CHECK(int_result[2] == static_cast<std::int32_t>(*max_v) - 1000);
    CHECK(int_result[3] == n);
    CHECK(int_result[4] == n);
    const std::vector<std::uint32_t> uint_result = download<std::uint32_t>(*queue, *uints, 5);
    CHECK(uint_result == std::vector<std::uint32_t>{uint_sum, *min_v, *max_v, std::uint32_t(n), std::uint32_t(n)});

    if (int_result[5] != 1) {
      skip(device.info().name + " lacks 64-bit atomics (cl_khr_int64_base/extended_atomics)");
      return;
    }
    const std::vector<std::int64_t> long_result = download<std::int64_t>(*queue, *longs, 4);
    CHECK(static_cast<std::uint64_t>(long_result[0]) == long_sum);
    CHECK(long_result[1] == long_value(*min_v));
    CHECK(long_result[2] == long_value(*max_v));
    CHECK(long_result[3] == n);
    CHECK(long_result[1] < 0);  // the values reach past 32 bits on both sides of 0
    CHECK(long_result[2] > (std::int64_t{1} << 32));
    const std::vector<std::uint64_t> ulong_result = download<std::uint64_t>(*queue, *ulongs, 4);
    CHECK(ulong_result == std::vector<std::uint64_t>{ulong_sum, ulong_value(*min_v), ulong_value(*max_v),
                                                     std::uint64_t(n)});
  });
}

TEST_CASE("Conformance.Dialect.local_atomics_per_group") {
  for_each_device([](Device& device) {
    const int n = 1000;  // the last of 16 groups is partly empty
    const int wgs = 64;
    const int groups = (n + wgs - 1) / wgs;
    const std::vector<std::uint32_t> values = random_values(n);
    auto queue = device.create_queue();
    auto device_values = upload(device, *queue, values);
    auto uints = device.allocate(5 * groups * sizeof(std::uint32_t));
    auto floats = device.allocate(groups * sizeof(float));
    auto ulongs = upload(device, *queue, std::vector<std::uint64_t>(4 * groups, 0));
    queue->launch(*dialect_kernel(device, "local_atomics"), {Extent(groups * wgs), Extent(wgs)}, n,
                  *device_values, *uints, *floats, *ulongs);
    const std::vector<std::uint32_t> stats = download<std::uint32_t>(*queue, *uints, 5 * groups);
    const std::vector<float> sums = download<float>(*queue, *floats, groups);
    const std::vector<std::uint64_t> wide = download<std::uint64_t>(*queue, *ulongs, 4 * groups);
    // The kernel leaves every wide slot at 0 without 64-bit atomics.
    const bool have_64 = std::any_of(wide.begin(), wide.end(), [](std::uint64_t w) { return w != 0; });
    for (int g = 0; g < groups; ++g) {
      CAPTURE(g);
      const auto first = values.begin() + g * wgs;
      const auto last = values.begin() + std::min(n, (g + 1) * wgs);
      std::uint32_t sum = 0;
      std::uint64_t wide_sum = 0, wide_min = UINT64_MAX, wide_max = 0;
      for (auto v = first; v != last; ++v) {
        sum += *v;
        wide_sum += ulong_value(*v);
        wide_min = std::min(wide_min, ulong_value(*v));
        wide_max = std::max(wide_max, ulong_value(*v));
      }
      const auto count = static_cast<std::uint32_t>(last - first);
      const std::vector<std::uint32_t> group(stats.begin() + 5 * g, stats.begin() + 5 * g + 5);
      CHECK(group == std::vector<std::uint32_t>{sum, *std::min_element(first, last),
                                                *std::max_element(first, last), count, count});
      // Every partial sum is an integer below 64 * 100000 < 2^24, so exact
      // in float whatever order the work-items add in.
      CHECK(sums[g] == static_cast<float>(sum));
      if (have_64) {
        const std::vector<std::uint64_t> group_wide(wide.begin() + 4 * g, wide.begin() + 4 * g + 4);
        CHECK(group_wide == std::vector<std::uint64_t>{wide_sum, wide_min, wide_max, count});
      }
    }
  });
}

TEST_CASE("Conformance.Dialect.vector_loads_stores_and_arithmetic") {
  for_each_device([](Device& device) {
    const int n4 = 301;
    std::vector<float> in(4 * n4);
    std::vector<std::int32_t> in_ints(4 * n4);
    for (int i = 0; i < 4 * n4; ++i) {
      in[i] = static_cast<float>(i % 29) - 14.0f;  // small integers: every result below is exact
      in_ints[i] = (i * 7) % 1001 - 500;
    }
    auto queue = device.create_queue();
    auto device_in = upload(device, *queue, in);
    auto device_in_ints = upload(device, *queue, in_ints);
    auto out4 = device.allocate(4 * n4 * sizeof(float));
    auto dots = device.allocate(n4 * sizeof(float));
    auto halves = device.allocate(2 * n4 * sizeof(float));
    auto ints = device.allocate(4 * n4 * sizeof(std::int32_t));
    queue->launch(*dialect_kernel(device, "vectors"), {Extent(round_up(n4, 64)), Extent(64)}, n4, *device_in,
                  *out4, *dots, *halves, *device_in_ints, *ints);
    const std::vector<float> out = download<float>(*queue, *out4, 4 * n4);
    const std::vector<float> dot = download<float>(*queue, *dots, n4);
    const std::vector<float> half = download<float>(*queue, *halves, 2 * n4);
    const std::vector<std::int32_t> int_out = download<std::int32_t>(*queue, *ints, 4 * n4);
    for (int i = 0; i < n4; ++i) {
      CAPTURE(i);
      const float* a = &in[4 * i];
      const int* k = &in_ints[4 * i];
      for (int c = 0; c < 4; ++c) {
        REQUIRE(out[4 * i + c] == 2.0f * a[c] + a[3 - c] / 2.0f - static_cast<float>(c + 1));
      }
      REQUIRE(dot[i] == a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
      REQUIRE(half[2 * i] == (a[0] + a[2]) * 3.0f);
      REQUIRE(half[2 * i + 1] == (a[1] + a[3]) * 3.0f);
      REQUIRE(std::vector<int>(int_out.begin() + 4 * i, int_out.begin() + 4 * i + 4) ==
              std::vector<int>{k[0] * 2 + 1, k[1] * 2 + 1, k[2] * 2 + 1, k[0] * 2 + 1});
    }
  });
}

}  // namespace alloy::test
