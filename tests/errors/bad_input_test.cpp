// Bad input gives a clear alloy error, and the runtime keeps working afterwards.
#include "embedded/broken_source.hpp"
#include "embedded/saxpy_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

std::shared_ptr<Kernel> saxpy_kernel(Device& device) {
  return runtime()
      .program(device, {"saxpy.cl", std::string(alloy_kernels::saxpy_source), ""})
      ->kernel("saxpy");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Errors.Compile.syntax_error_gives_log_and_kernel_name") {
  for_each_device([](Device& device) {
    const ProgramSource broken{"broken.cl", std::string(alloy_kernels::broken_source), ""};
    try {
      runtime().program(device, broken);
      FAIL("a kernel with a syntax error compiled");
    } catch (const CompileError& error) {
      const std::string message = error.what();
      CHECK(contains(message, "broken.cl"));
      CHECK(contains(message, "kernels broken"));
      CHECK(contains(message, device.label()));
      CHECK_FALSE(error.log().empty());
      CHECK(contains(message, error.log()));
      // The #line directive after the prelude makes the log point into
      // broken.cl: "broken.cl:4:31" (clang) or "broken.cl(5)" (NVRTC).
      CHECK((contains(error.log(), "broken.cl:") || contains(error.log(), "broken.cl(")));
    }
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Arguments.wrong_count") {
  for_each_device([](Device& device) {
    auto kernel = saxpy_kernel(device);
    auto queue = device.create_queue();
    auto x = device.allocate(64 * sizeof(float));
    try {
      queue->launch(*kernel, {Extent(64)}, 64, 1.0f, *x);
      FAIL("a launch with 3 of 4 arguments was accepted");
    } catch (const InvalidArgument& error) {
      CHECK(contains(error.what(), "'saxpy' takes 4 arguments, got 3; first missing: argument 3 "
                                   "'y' (GLOBAL float* restrict)"));
    }
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Arguments.wrong_type_names_the_argument") {
  for_each_device([](Device& device) {
    auto kernel = saxpy_kernel(device);
    auto queue = device.create_queue();
    auto x = device.allocate(64 * sizeof(float));
    auto y = device.allocate(64 * sizeof(float));

    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(64)}, 64, 1.0, *x, *y),
                         doctest::Contains("argument 1 'a' (const float) of kernel 'saxpy' "
                                           "expects float, got double"),
                         InvalidArgument);
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(64)}, std::size_t{64}, 1.0f, *x, *y),
                         doctest::Contains("'n' (const int) of kernel 'saxpy' expects int, got ulong"),
                         InvalidArgument);
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(64)}, 64, 1.0f, 2.0f, *y),
                         doctest::Contains("'x'"), InvalidArgument);
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(64)}, *x, 1.0f, *x, *y),
                         doctest::Contains("'n' (const int) of kernel 'saxpy' is a scalar"),
                         InvalidArgument);
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Arguments.count_checked_without_parsed_declaration") {
  for_each_device([](Device& device) {
    auto kernel = conformance_kernel(device, "fill_hidden");
    CHECK_FALSE(kernel->signature());
    REQUIRE(kernel->attributes().argument_count);
    CHECK(*kernel->attributes().argument_count == 2);
    auto queue = device.create_queue();
    auto out = device.allocate(64 * sizeof(int));
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(64)}, 7),
                         doctest::Contains("the kernel takes 2 arguments, got 1"),
                         InvalidArgument);
    queue->launch(*kernel, {Extent(64)}, 7, *out);
    for (int value : download<int>(*queue, *out, 64)) REQUIRE(value == 7);
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Launch.empty_or_overflowing_sizes") {
  for_each_device([](Device& device) {
    auto kernel = saxpy_kernel(device);
    auto queue = device.create_queue();
    auto x = device.allocate(64 * sizeof(float));
    auto y = device.allocate(64 * sizeof(float));
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(0)}, 64, 1.0f, *x, *y),
                         doctest::Contains("has an empty dimension"), InvalidArgument);
    const std::size_t huge = std::size_t{1} << 40;
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(huge, huge)}, 64, 1.0f, *x, *y),
                         doctest::Contains("counts more than 2^64 work-items; split the launch into smaller ones"),
                         InvalidArgument);
    // Each failure gets its own hint: not the empty dimension's.
    try {
      queue->launch(*kernel, {Extent(huge, huge)}, 64, 1.0f, *x, *y);
    } catch (const InvalidArgument& error) {
      CHECK(std::string(error.what()).find("at least one work-item") == std::string::npos);
    }
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Launch.local_size_above_limits_names_both") {
  for_each_device([](Device& device) {
    auto kernel = saxpy_kernel(device);
    auto queue = device.create_queue();
    auto x = device.allocate(64 * sizeof(float));
    auto y = device.allocate(64 * sizeof(float));
    const std::size_t too_large = device.info().max_work_group_size * 2;
    try {
      queue->launch(*kernel, {Extent(too_large), Extent(too_large)}, 64, 1.0f, *x, *y);
      FAIL("a local size above the device's limit was accepted");
    } catch (const InvalidArgument& error) {
      const std::string message = error.what();
      CHECK(contains(message, "local size " + std::to_string(too_large)));
      CHECK(contains(message, "the kernel takes at most " +
                                  std::to_string(kernel->attributes().max_work_group_size)));
      CHECK(contains(message, "the device at most " +
                                  std::to_string(device.info().max_work_group_size)));
    }
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(100), Extent(64)}, 64, 1.0f, *x, *y),
                         doctest::Contains("global size 100 is not a multiple of local size 64"),
                         InvalidArgument);
    CHECK_THROWS_WITH_AS(queue->launch(*kernel, {Extent(64, 2), Extent(64)}, 64, 1.0f, *x, *y),
                         doctest::Contains("different numbers of dimensions"), InvalidArgument);
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Memory.allocation_above_device_limit") {
  for_each_device([](Device& device) {
    const std::size_t limit = device.info().max_allocation_bytes;
    try {
      device.allocate(limit + 1);
      FAIL("an allocation above the device's limit was accepted");
    } catch (const InvalidArgument& error) {
      const std::string message = error.what();
      CHECK(contains(message, std::to_string(limit + 1) + " bytes"));
      CHECK(contains(message, std::to_string(limit) + " bytes"));
      CHECK(contains(message, device.label()));
    }
    CHECK_THROWS_AS(device.allocate(0), InvalidArgument);
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Memory.transfer_outside_buffer") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    auto buffer = device.allocate(100);
    std::vector<char> host(200);
    CHECK_THROWS_WITH_AS(queue->write(*buffer, 50, host.data(), 51),
                         doctest::Contains("bytes [50, 101) lie outside the buffer of 100 bytes"),
                         InvalidArgument);
    CHECK_THROWS_AS(queue->read(*buffer, 101, host.data(), 0), InvalidArgument);
    const std::uint64_t pattern = 0;
    CHECK_THROWS_WITH_AS(queue->fill(*buffer, 0, &pattern, 8, 64),
                         doctest::Contains("1, 2 or 4"), InvalidArgument);
    check_saxpy_works(device);
  });
}

TEST_CASE("Errors.Program.unknown_kernel_name") {
  for_each_device([](Device& device) {
    auto program =
        runtime().program(device, {"saxpy.cl", std::string(alloy_kernels::saxpy_source), ""});
    try {
      program->kernel("saxpi");
      FAIL("a kernel name the program lacks was accepted");
    } catch (const InvalidArgument& error) {
      CHECK(contains(error.what(), "saxpy.cl has no kernel named 'saxpi'"));
      CHECK(contains(error.what(), device.label()));
      CHECK(contains(error.what(), "it declares: saxpy"));
    }
    check_saxpy_works(device);
  });
}

}  // namespace alloy::test
