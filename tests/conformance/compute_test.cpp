// Conformance: kernels of the portable dialect compute the right results on every device.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include "embedded/saxpy_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {

TEST_CASE("Conformance.Saxpy.float") {
  for_each_device([](Device& device) { check_saxpy_works(device); });
}

TEST_CASE("Conformance.Reduction.local_memory") {
  for_each_device([](Device& device) {
    for (const std::size_t work_group : {std::size_t{16}, std::size_t{64}, std::size_t{128}}) {
      CAPTURE(work_group);
      const int n = 10007;  // not a multiple of any work-group size: tests the tail
      std::vector<float> input(n);
      for (int i = 0; i < n; ++i) input[i] = static_cast<float>(i % 13) - 6.0f;
      const std::size_t global = round_up(n, work_group);
      const std::size_t groups = global / work_group;

      auto queue = device.create_queue();
      auto device_input = upload(device, *queue, input);
      auto partial_sums = device.allocate(groups * sizeof(float));
      auto kernel = conformance_kernel(device, "reduce_sum", "-DWGS=" + std::to_string(work_group));
      queue->launch(*kernel, {Extent(global), Extent(work_group)}, n, *device_input, *partial_sums);
      const std::vector<float> sums = download<float>(*queue, *partial_sums, groups);

      for (std::size_t g = 0; g < groups; ++g) {
        const std::size_t begin = g * work_group;
        const std::size_t end = std::min<std::size_t>(begin + work_group, n);
        const float expected = std::accumulate(input.begin() + begin, input.begin() + end, 0.0f);
        REQUIRE(sums[g] == doctest::Approx(expected));
      }
    }
  });
}

TEST_CASE("Conformance.Indexing.two_dimensional") {
  for_each_device([](Device& device) {
    const int width = 45;
    const int height = 30;
    const Extent local(8, 4);
    const Extent global(round_up(width, 8), round_up(height, 4));
    auto queue = device.create_queue();
    auto out = device.allocate(width * height * sizeof(int));
    auto groups = device.allocate(width * height * sizeof(int));
    auto kernel = conformance_kernel(device, "index_2d");
    queue->launch(*kernel, {global, local}, width, height, *out, *groups);
    const std::vector<int> positions = download<int>(*queue, *out, width * height);
    const std::vector<int> group_ids = download<int>(*queue, *groups, width * height);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        REQUIRE(positions[y * width + x] == y * 1000 + x);
        REQUIRE(group_ids[y * width + x] == x / 8 + 100 * (y / 4));
      }
    }
  });
}

TEST_CASE("Conformance.Atomics.int_and_float") {
  for_each_device([](Device& device) {
    const int n = 4099;
    std::vector<int> values(n);
    for (int i = 0; i < n; ++i) values[i] = i % 17;
    const int expected = std::accumulate(values.begin(), values.end(), 0);

    auto queue = device.create_queue();
    auto device_values = upload(device, *queue, values);
    auto int_total = device.allocate(sizeof(int));
    auto float_total = device.allocate(sizeof(float));
    const int zero = 0;
    queue->fill(*int_total, 0, &zero, sizeof zero, sizeof(int));
    queue->fill(*float_total, 0, &zero, sizeof zero, sizeof(float));
    auto kernel = conformance_kernel(device, "atomic_sums");
    queue->launch(*kernel, {Extent(round_up(n, 64)), Extent(64)}, n, *device_values, *int_total,
                  *float_total);
    // Small integers are exact in float whatever order the additions run in.
    CHECK(download<int>(*queue, *int_total, 1)[0] == expected);
    CHECK(download<float>(*queue, *float_total, 1)[0] == static_cast<float>(expected));
  });
}

TEST_CASE("Conformance.Math.matches_host") {
  for_each_device([](Device& device) {
    const int n = 257;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = (static_cast<float>(i) - 128.0f) / 32.0f;
    auto queue = device.create_queue();
    auto device_x = upload(device, *queue, x);
    auto out = device.allocate(n * sizeof(float));
    auto kernel = conformance_kernel(device, "math_functions");
    queue->launch(*kernel, {Extent(round_up(n, 64)), Extent(64)}, n, *device_x, *out);
    const std::vector<float> result = download<float>(*queue, *out, n);
    for (int i = 0; i < n; ++i) {
      const double v = x[i];
      const double a = std::fabs(v);
      const double expected = std::sqrt(a) * std::exp(-a) + std::log(1.0 + a) + std::fmin(v, 0.5) +
                              std::fmax(v, -0.5) + std::clamp(v, -1.0, 1.0) +
                              1.0 / std::sqrt(1.0 + v * v) + std::pow(1.0 + a, 0.75);
      // mad and rsqrt may trade precision for speed: OpenCL allows a few ulp.
      REQUIRE(result[i] == doctest::Approx(expected).epsilon(1e-4));
    }
  });
}

TEST_CASE("Conformance.Launch.backend_chooses_local_size") {
  for_each_device([](Device& device) {
    const int n = 1000;
    auto queue = device.create_queue();
    auto x = upload(device, *queue, std::vector<float>(n, 1.0f));
    auto y = upload(device, *queue, std::vector<float>(n, 2.0f));
    auto kernel = runtime()
                      .program(device, {"saxpy.cl", std::string(alloy_kernels::saxpy_source), ""})
                      ->kernel("saxpy");
    queue->launch(*kernel, {Extent(n)}, n, 0.5f, *x, *y);
    for (float value : download<float>(*queue, *y, n)) REQUIRE(value == 2.5f);
  });
}

TEST_CASE("Conformance.Kernel.attributes") {
  for_each_device([](Device& device) {
    auto kernel = conformance_kernel(device, "reduce_sum", "-DWGS=64");
    CHECK(kernel->attributes().max_work_group_size >= 64);
    CHECK(kernel->attributes().max_work_group_size <= device.info().max_work_group_size);
    CHECK(kernel->attributes().preferred_work_group_multiple >= 1);
    REQUIRE(kernel->signature());
    CHECK(kernel->signature()->parameters.size() == 3);
  });
}

TEST_CASE("Conformance.Kernel.attribute_before_void_is_parsed") {
  for_each_device([](Device& device) {
    auto kernel = conformance_kernel(device, "add_attributed");
    REQUIRE(kernel->signature());
    CHECK(kernel->signature()->parameters.size() == 2);
    auto queue = device.create_queue();
    auto values = upload(device, *queue, std::vector<int>(100, 1));
    queue->launch(*kernel, {Extent(128), Extent(64)}, 100, *values);
    for (int value : download<int>(*queue, *values, 100)) REQUIRE(value == 2);
  });
}

TEST_CASE("Conformance.Launch.same_kernel_from_several_threads") {
  for_each_device([](Device& device) {
    auto kernel = runtime()
                      .program(device, {"saxpy.cl", std::string(alloy_kernels::saxpy_source), ""})
                      ->kernel("saxpy");
    const int n = 4096;
    constexpr int thread_count = 4;
    constexpr int launches = 25;
    // Each thread has its own queue and buffers but shares the kernel object,
    // whose arguments must not leak between threads' launches.
    std::vector<std::vector<float>> results(thread_count);
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t) {
      threads.emplace_back([&, t] {
        auto queue = device.create_queue();
        auto x = upload(device, *queue, std::vector<float>(n, 1.0f));
        auto y = upload(device, *queue, std::vector<float>(n, 0.0f));
        for (int i = 0; i < launches; ++i) {
          queue->launch(*kernel, {Extent(n), Extent(64)}, n, static_cast<float>(t + 1), *x, *y);
        }
        results[t] = download<float>(*queue, *y, n);
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < thread_count; ++t) {
      CAPTURE(t);
      for (float value : results[t]) REQUIRE(value == static_cast<float>(launches * (t + 1)));
    }
  });
}

}  // namespace alloy::test
