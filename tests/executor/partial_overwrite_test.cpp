// A task that writes part of what a pending transfer fills must not make
// readers of the rest skip waiting for that transfer: the smallest program
// the random suite found, run until a race would have shown.
#include <algorithm>
#include <numeric>

#include "embedded/conformance_source.hpp"
#include "embedded/slices_source.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource conformance{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};
const ProgramSource ranges{"slices.cl", std::string(alloy_kernels::slices_source), ""};
// Large, so that the transfer the reduction starts is still on its way when
// the copy reads.
constexpr int elements = 1 << 20;
constexpr int reduced_end = elements - 43;

TaskOptions on_device(std::size_t device) {
  TaskOptions options;
  options.device = device;
  return options;
}

/// Scales B1[23, 87) on the first device; on the last, reduces B1[3, end)
/// into B1[154] and, on another lane, copies B1[83, 133) into B2.
void run_once(const std::vector<Device*>& devices) {
  std::vector<std::uint32_t> initial(elements);
  std::iota(initial.begin(), initial.end(), 1u);
  Buffer<std::uint32_t> b1{std::span<const std::uint32_t>(initial)};
  Buffer<std::uint32_t> b2(elements);
  ExecutorOptions options;
  options.devices = devices;
  options.compute_lanes = 2;
  Executor executor(runtime(), options);
  const std::size_t last = devices.size() - 1;
  executor.kernel(ranges, "scale_range", {Extent(64)},
                  {23, 64, 3u, 1u, read_write(b1.slice(23, 64))}, on_device(0));
  executor.kernel(conformance, "sum_range", {Extent(1)},
                  {3, reduced_end - 3, 154, read(b1.slice(3, reduced_end - 3)), write(b1.slice(154, 1))}, on_device(last));
  executor.kernel(ranges, "copy_range", {Extent(64)},
                  {83, 15, 50, read(b1.slice(83, 50)), write(b2.slice(15, 50))}, on_device(last));
  executor.synchronize(b1);
  executor.synchronize(b2);
  executor.wait();

  std::vector<std::uint32_t> expected = initial;
  for (int i = 23; i < 87; ++i) expected[i] = expected[i] * 3 + 1;
  const std::uint32_t sum = std::accumulate(expected.begin() + 3, expected.begin() + reduced_end, 0u);
  const std::vector<std::uint32_t> copied(expected.begin() + 83, expected.begin() + 133);
  expected[154] = sum;
  CHECK(std::equal(expected.begin(), expected.end(), b1.host().begin()));
  CHECK(std::equal(copied.begin(), copied.end(), b2.host().begin() + 15));
}

}  // namespace

TEST_CASE("Executor.Coherence.partial_write_keeps_waiting_for_the_rest_of_a_transfer") {
  if (!have_devices(1)) return;
  const std::vector<Device*> devices = selected_devices();
  for (int run = 0; run < 50; ++run) {
    CAPTURE(run);
    run_once({devices.front()});
    if (devices.size() >= 2) run_once({devices[0], devices[1]});
  }
}

}  // namespace alloy::test
