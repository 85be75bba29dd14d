// Device iteration and kernel access shared by the test executables.
#include "support/test_devices.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "embedded/conformance_source.hpp"
#include "support/case_outcomes.hpp"
#include "embedded/saxpy_source.hpp"

namespace alloy::test {

Runtime& runtime() {
  static Runtime shared;
  return shared;
}

std::string& selected_backend() {
  static std::string backend;
  return backend;
}

bool is_required(const std::string& backend) {
  const char* required = std::getenv("ALLOY_REQUIRE_BACKENDS");
  if (required == nullptr) return false;
  std::stringstream list(required);
  for (std::string name; std::getline(list, name, ',');) {
    if (name == backend) return true;
  }
  return false;
}

std::vector<Device*> selected_devices() {
  std::vector<Device*> devices;
  for (Device* device : runtime().devices()) {
    if (selected_backend().empty() || device->info().backend == selected_backend()) {
      devices.push_back(device);
    }
  }
  return devices;
}

void for_each_device(const std::function<void(Device&)>& body) {
  std::string reasons;
  for (const BackendStatus& backend : runtime().backends()) {
    reasons += "\n  " + backend.name + ": " + (backend.reason.empty() ? "ok" : backend.reason);
    if (backend.name == selected_backend() && backend.devices.empty()) {
      const std::string why = backend.name + " has no devices: " + backend.reason;
      if (is_required(backend.name)) FAIL(why << " (ALLOY_REQUIRE_BACKENDS requires it)");
      skip(why);
      return;
    }
  }
  const std::vector<Device*> devices = selected_devices();
  INFO("backends:" << reasons);
  REQUIRE_FALSE(devices.empty());
  for (Device* device : devices) {
    const std::string device_label = device->label();
    CAPTURE(device_label);
    body(*device);
  }
}

void skip(const std::string& reason) {
  record_skip(reason);
  MESSAGE("skipped: " << reason);
}

bool have_devices(std::size_t count) {
  const std::size_t found = selected_devices().size();
  if (found >= count) return true;
  skip("needs " + std::to_string(count) + " devices of the backend, found " + std::to_string(found));
  return false;
}

ExecutorOptions on_selected_devices() {
  ExecutorOptions options;
  options.devices = selected_devices();
  return options;
}

ExecutorOptions on_first_device(unsigned host_threads) {
  ExecutorOptions options = on_selected_devices();
  options.devices.resize(1);
  options.host_threads = host_threads;
  return options;
}

std::shared_ptr<Kernel> conformance_kernel(Device& device, const std::string& name,
                                           const std::string& options) {
  const ProgramSource source{"conformance.cl", std::string(alloy_kernels::conformance_source),
                             options};
  return runtime().program(device, source)->kernel(name);
}

void check_saxpy_works(Device& device, Runtime& owner) {
  const int n = 1000;
  const float a = 3.0f;
  std::vector<float> x(n);
  std::vector<float> y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }
  auto queue = device.create_queue();
  auto device_x = upload(device, *queue, x);
  auto device_y = upload(device, *queue, y);
  auto kernel = owner
                    .program(device, {"saxpy.cl", std::string(alloy_kernels::saxpy_source), ""})
                    ->kernel("saxpy");
  queue->launch(*kernel, {Extent(round_up(n, 64)), Extent(64)}, n, a, *device_x, *device_y);
  const std::vector<float> result = download<float>(*queue, *device_y, n);
  for (int i = 0; i < n; ++i) REQUIRE(result[i] == doctest::Approx(a * x[i] + 1.0f));
}

ProfiledRuntime runtime_with_profiles(const std::filesystem::path& profiles, const Device& device) {
  RuntimeOptions options;
  options.profiles = profiles;
  options.cache_dir = runtime().program_cache().dir();
  ProfiledRuntime result{std::make_unique<Runtime>(options), nullptr};
  // Devices are listed in the same order by every Runtime of one process.
  const auto& ours = runtime().devices();
  const auto position = std::find(ours.begin(), ours.end(), &device) - ours.begin();
  REQUIRE(static_cast<std::size_t>(position) < result.runtime->devices().size());
  result.device = result.runtime->devices()[static_cast<std::size_t>(position)];
  REQUIRE(result.device->label() == device.label());
  return result;
}

}  // namespace alloy::test
