// How the CUDA and HIP backends shape a launch, and what their errors say,
// without a GPU: the rules come from the drivers' documented limits.
#include <doctest/doctest.h>

#include "alloy/error.hpp"
#include "launch_geometry.hpp"
#include "stream_check.hpp"

namespace alloy::stream {
namespace {

/// An H100's limits (cuDeviceGetAttribute), for a kernel of 1024 threads.
LaunchLimits cuda_limits() {
  LaunchLimits limits;
  limits.kernel_block_threads = 1024;
  limits.block_dims = {1024, 1024, 64};
  limits.grid_dims = {2147483647, 65535, 65535};
  limits.warp = 32;
  return limits;
}

/// What a launch's errors name.
std::function<std::string()> named(const char* launch) {
  return [launch] { return std::string(launch); };
}

std::size_t threads(const LaunchGeometry& geometry) {
  return std::size_t{geometry.block[0]} * geometry.block[1] * geometry.block[2];
}

void check_tiles(const LaunchGeometry& geometry, const Extent& global) {
  for (unsigned d = 0; d < 3; ++d) {
    CAPTURE(d);
    CHECK(std::size_t{geometry.grid[d]} * geometry.block[d] == global[d]);
  }
}

}  // namespace

TEST_CASE("StreamModel.LaunchGeometry.blocks_without_a_local_size_fill_warps") {
  // A power of two: 256, the usual start.
  LaunchGeometry geometry = choose_geometry({Extent(1 << 20)}, cuda_limits(), named("test"));
  CHECK(geometry.block[0] == 256);
  check_tiles(geometry, Extent(1 << 20));
  CHECK(tiny_block_advice({Extent(1 << 20)}, geometry, 32).empty());
  // 2 x 509: the largest divisor up to 256 would be 2 (1/16 of each warp);
  // 509 fills 509 of 512 lanes.
  geometry = choose_geometry({Extent(2 * 509)}, cuda_limits(), named("test"));
  CHECK(geometry.block[0] == 509);
  CHECK(geometry.lane_use > 0.99);
  check_tiles(geometry, Extent(2 * 509));
  // Within what the kernel allows: at most 128 threads leaves 2 x 509 with 2.
  LaunchLimits small_kernel = cuda_limits();
  small_kernel.kernel_block_threads = 128;
  CHECK(choose_geometry({Extent(2 * 509)}, small_kernel, named("test")).block[0] == 2);
}

TEST_CASE("StreamModel.LaunchGeometry.a_prime_length_is_said_to_waste_warps") {
  const Extent prime(1000003);
  const LaunchGeometry geometry = choose_geometry({prime}, cuda_limits(), named("test"));
  CHECK(threads(geometry) == 1);
  check_tiles(geometry, prime);
  const std::string advice = tiny_block_advice({prime}, geometry, 32);
  CHECK(advice.find("1 of every 32 lanes") != std::string::npos);
  CHECK(advice.find("32x slower") != std::string::npos);
  CHECK(advice.find("give a local size") != std::string::npos);
  // The caller's own local size is the caller's choice: no advice.
  const LaunchRange given{Extent(64), Extent(1)};
  CHECK(tiny_block_advice(given, choose_geometry(given, cuda_limits(), named("test")), 32).empty());
}

TEST_CASE("StreamModel.LaunchGeometry.tall_launches_keep_grid_y_within_65535") {
  // 2^17 rows of 4: one row per block would need 131072 blocks in y.
  const Extent tall(4, 1 << 17);
  const LaunchGeometry geometry = choose_geometry({tall}, cuda_limits(), named("test"));
  CHECK(geometry.grid[1] <= 65535);
  CHECK(geometry.block[1] == 4);  // the smallest that fits (2 leaves 65536), leaving threads to x
  check_tiles(geometry, tall);
  CHECK(threads(geometry) <= 1024);
  // A prime height above the limit has no divisor that fits.
  try {
    choose_geometry({Extent(4, 1000003)}, cuda_limits(), named("launch of 'k' on cuda:0"));
    FAIL("a prime height of 1000003 was accepted");
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    CHECK(message.find("launch of 'k' on cuda:0") != std::string::npos);
    CHECK(message.find("dimension y") != std::string::npos);
    CHECK(message.find("65535") != std::string::npos);
  }
}

TEST_CASE("StreamModel.LaunchGeometry.hip_limits_work_items_per_dimension_to_2_pow_32") {
  LaunchLimits hip = cuda_limits();
  hip.warp = 64;
  hip.work_items_per_dimension = (std::uint64_t{1} << 32) - 1;
  const Extent too_many(std::size_t{1} << 32);
  CHECK_NOTHROW(choose_geometry({too_many}, cuda_limits(), named("cuda")));
  try {
    choose_geometry({too_many}, hip, named("launch of 'k' on hip:0"));
    FAIL("2^32 work-items were accepted under HIP's limits");
  } catch (const InvalidArgument& error) {
    CHECK(std::string(error.what()).find("4294967295") != std::string::npos);
  }
  // A 64-wide wavefront makes 32-thread blocks half empty.
  CHECK(choose_geometry({Extent(32 * 3)}, hip, named("test")).block[0] == 96);
}

TEST_CASE("StreamModel.Errors.sticky_faults_say_the_device_is_lost") {
  for (const char* code : {"CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED (emulated)",
                           "hipErrorIllegalAddress", "CUDA_ERROR_MISALIGNED_ADDRESS"}) {
    CAPTURE(code);
    CHECK(is_sticky_fault(code));
    CHECK(hint_for(code).find("rest of the process") != std::string::npos);
  }
  // Refused launches and full memory leave the context usable.
  for (const char* code : {"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "CUDA_ERROR_OUT_OF_MEMORY",
                           "CUDA_ERROR_ILLEGAL_ADDRESS_SPACE_X", "hipErrorInvalidValue"}) {
    CAPTURE(code);
    CHECK_FALSE(is_sticky_fault(code));
  }
}

}  // namespace alloy::stream
