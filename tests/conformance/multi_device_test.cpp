// Conformance across devices: two PoCL devices, copies and waits between devices.
#include <numeric>

#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

std::vector<Device*> pocl_devices() {
  std::vector<Device*> found;
  for (Device* device : selected_devices()) {
    if (device->info().name.starts_with("pthread") || device->info().name.starts_with("cpu-")) {
      found.push_back(device);
    }
  }
  return found;
}

/// Two devices whose buffers one queue can reach, or none.
std::pair<Device*, Device*> two_devices_sharing_memory() {
  const std::vector<Device*> devices = selected_devices();
  for (Device* a : devices) {
    for (Device* b : devices) {
      if (a != b && a->shares_memory_with(*b)) return {a, b};
    }
  }
  return {nullptr, nullptr};
}

}  // namespace

TEST_CASE("MultiDevice.PoCL.two_devices_enumerate_and_run") {
  const std::vector<Device*> devices = pocl_devices();
  if (devices.empty()) {
    skip("no PoCL device; this test checks POCL_DEVICES=\"pthread pthread\"");
    return;
  }
  // The test main sets POCL_DEVICES="pthread pthread" unless the caller chose otherwise.
  const char* requested = std::getenv("POCL_DEVICES");
  if (requested == nullptr || std::string(requested) != "pthread pthread") {
    skip(std::string("POCL_DEVICES is set to '") + (requested ? requested : "") + "'");
    return;
  }
  REQUIRE(devices.size() == 2);
  CHECK(devices[0] != devices[1]);
  CHECK(devices[0]->info().fingerprint() == devices[1]->info().fingerprint());
  for (Device* device : devices) check_saxpy_works(*device);
}

TEST_CASE("MultiDevice.Memory.copy_between_devices") {
  const auto [first, second] = two_devices_sharing_memory();
  if (first == nullptr) {
    skip("no two devices that share memory (one OpenCL context); run with two PoCL devices");
    return;
  }
  std::vector<int> values(10000);
  std::iota(values.begin(), values.end(), -5000);
  auto first_queue = first->create_queue();
  auto second_queue = second->create_queue();
  auto source = upload(*first, *first_queue, values);
  auto target = second->allocate(values.size() * sizeof(int));
  second_queue->copy(*source, 0, *target, 0, values.size() * sizeof(int));
  CHECK(download<int>(*second_queue, *target, values.size()) == values);
}

TEST_CASE("MultiDevice.Queue.wait_for_event_of_another_queue") {
  const auto [first, second] = two_devices_sharing_memory();
  if (first == nullptr) {
    skip("no two devices that share memory (one OpenCL context); run with two PoCL devices");
    return;
  }
  const int n = 1 << 20;
  const std::size_t bytes = n * sizeof(float);
  auto first_queue = first->create_queue();
  auto second_queue = second->create_queue();
  auto produced = first->allocate(bytes);
  auto copied = second->allocate(bytes);
  auto spin_output = first->allocate(2 * sizeof(float));
  const std::vector<float> twos(n, 2.0f);
  // The write waits behind a kernel that runs for a while (about 0.2 s on
  // PoCL), so it cannot have completed when wait_for returns unless
  // wait_for blocked the host.
  first_queue->launch(*conformance_kernel(*first, "spin"), {Extent(2)}, 100'000'000, *spin_output);
  auto written = first_queue->write(*produced, 0, twos.data(), bytes);
  second_queue->wait_for(*written);
  CHECK_FALSE(written->is_complete());
  second_queue->copy(*produced, 0, *copied, 0, bytes);
  CHECK(download<float>(*second_queue, *copied, n) == twos);
  CHECK(written->is_complete());
}

}  // namespace alloy::test
