// Rules of the CUDA and HIP drivers that the stream backend must follow,
// checked through alloy's device interface: on emulated devices here (they
// model the rules, docs/emulated.md), on a GPU where one is present.
#include <cstring>
#include <numeric>
#include <vector>

#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

/// Writes each work-item's global id, so that a result shows which
/// work-items ran, each exactly once.
const ProgramSource ids_source{"ids.cl", R"(
KERNEL void write_ids(const ulong n, GLOBAL uint* out) {
  const size_t i = get_global_id(0);
  if (i < n) atomic_add_uint(&out[i], (uint)i + 1u);
}
)", ""};

std::vector<std::uint32_t> ids_after_launch(Device& device, Queue& queue, std::size_t n, EventTiming* timing) {
  auto kernel = device.build_program(ids_source)->kernel("write_ids");
  auto out = upload(device, queue, std::vector<std::uint32_t>(n, 0));
  auto done = queue.launch(*kernel, {Extent(n)}, std::uint64_t{n}, *out);
  done->wait();
  if (timing != nullptr) *timing = done->timing();
  return download<std::uint32_t>(queue, *out, n);
}

std::vector<std::uint32_t> expected_ids(std::size_t n) {
  std::vector<std::uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 1u);
  return ids;
}

}  // namespace

TEST_CASE("GpuRules.Launch.lengths_without_a_local_size_run_every_work_item_once") {
  for_each_device([](Device& device) {
    auto queue = device.create_queue();
    // A power of two, 2 x prime, a prime: the blocks chosen differ, every
    // work-item must still run exactly once.
    for (std::size_t n : {std::size_t{4096}, std::size_t{2 * 509}, std::size_t{10007}}) {
      CAPTURE(n);
      CHECK(ids_after_launch(device, *queue, n, nullptr) == expected_ids(n));
    }
  });
}

TEST_CASE("GpuRules.Launch.tiny_blocks_cost_whole_warps_on_emulated_devices") {
  for_each_device([](Device& device) {
    if (device.info().emulation.empty()) {
      skip("the cost of a block is asserted on the emulated device's model; bench it on " + device.label());
      return;
    }
    auto queue = device.create_queue();
    queue->set_timing(true);
    // 4093 is prime: blocks of 1, one lane of each warp busy; 4096 fills
    // warps. The model prices both lengths alike but for the lanes.
    // Each length once untimed first: the device computing the results
    // (PoCL) compiles a kernel for each block size at its first launch, and
    // a launch is busy for the model's time or as long as its work took.
    ids_after_launch(device, *queue, 4093, nullptr);
    ids_after_launch(device, *queue, 4096, nullptr);
    EventTiming prime;
    EventTiming filled;
    CHECK(ids_after_launch(device, *queue, 4093, &prime) == expected_ids(4093));
    CHECK(ids_after_launch(device, *queue, 4096, &filled) == expected_ids(4096));
    const unsigned warp = device.info().sub_group_width.value_or(32);
    const double ratio = static_cast<double>(prime.duration_ns()) / static_cast<double>(filled.duration_ns());
    INFO("prime " << prime.duration_ns() << " ns, filled " << filled.duration_ns() << " ns, warp " << warp);
    CHECK(ratio > 0.5 * warp);
    CHECK(ratio < 1.5 * warp);
  });
}

TEST_CASE("GpuRules.Registration.ranges_already_page_locked_are_used_as_they_are") {
  for_each_device([](Device& device) {
    std::vector<std::byte> memory(1 << 16);
    auto whole = device.register_host(memory.data(), memory.size());
    if (whole == nullptr) {
      skip(device.label() + " cannot page-lock the caller's memory");
      return;
    }
    CHECK_FALSE(whole->was_locked_already());
    // An in-place pipeline over part of it, as an MPI transport's range
    // would be: the driver refuses a second registration; alloy uses the
    // memory as page-locked.
    auto part = device.register_host(memory.data() + 4096, 8192);
    REQUIRE(part != nullptr);
    CHECK(part->was_locked_already());
    // Memory from allocate_host is page-locked from the start.
    auto pinned = device.allocate_host(4096);
    auto of_pinned = device.register_host(pinned->data(), 4096);
    REQUIRE(of_pinned != nullptr);
    CHECK(of_pinned->was_locked_already());
    // Transfers from the overlapping range still carry the right bytes.
    std::vector<std::uint32_t> values(2048);
    std::iota(values.begin(), values.end(), 7u);
    std::memcpy(memory.data() + 4096, values.data(), 8192);
    auto queue = device.create_queue();
    auto buffer = device.allocate(8192);
    queue->write(*buffer, 0, memory.data() + 4096, 8192);
    CHECK(download<std::uint32_t>(*queue, *buffer, 2048) == values);
    // Ending the part leaves the whole registered (a second registration
    // is refused again); ending the whole unregisters it.
    part.reset();
    CHECK(device.register_host(memory.data(), 4096)->was_locked_already());
    whole.reset();
    CHECK_FALSE(device.register_host(memory.data(), 4096)->was_locked_already());
  });
}

TEST_CASE("GpuRules.Launch.scalar_sizes_are_checked_where_the_declaration_hides_them") {
  // REAL hides the scalar's type from alloy's declaration parser; the
  // driver's parameter sizes (cuFuncGetParamInfo) still show it.
  const ProgramSource hidden{"hidden.cl", R"(
#define REAL_PARAMETER(name) double name
KERNEL void scale(GLOBAL double* out, REAL_PARAMETER(factor)) {
  out[get_global_id(0)] *= factor;
}
)", ""};
  for_each_device([&](Device& device) {
    auto kernel = device.build_program(hidden)->kernel("scale");
    if (kernel->attributes().argument_bytes.empty()) {
      skip(device.label() + ": the driver does not report parameter sizes (CUDA before 12.4, HIP)");
      return;
    }
    CHECK(kernel->attributes().argument_bytes == std::vector<std::size_t>{8, 8});
    auto queue = device.create_queue();
    auto out = upload(device, *queue, std::vector<double>(64, 1.5));
    try {
      queue->launch(*kernel, {Extent(64)}, *out, 2.0f);
      FAIL("a float was passed for a double parameter");
    } catch (const InvalidArgument& error) {
      const std::string message = error.what();
      CHECK(message.find("parameter 1 takes 8 bytes, got a float (4 bytes)") != std::string::npos);
    }
    queue->launch(*kernel, {Extent(64)}, *out, 2.0);
    CHECK(download<double>(*queue, *out, 64) == std::vector<double>(64, 3.0));
  });
}

}  // namespace alloy::test
