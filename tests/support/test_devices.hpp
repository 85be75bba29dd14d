// Helpers that run a test on every device and move data in and out of it.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "alloy/alloy.hpp"

namespace alloy::test {

/// One Runtime for the whole test executable, as a program would hold it.
Runtime& runtime();

/// The backend chosen with --alloy-backend=<name>; empty means all.
std::string& selected_backend();

/// The devices of the selected backend (all devices when none is selected).
std::vector<Device*> selected_devices();

/// True when ALLOY_REQUIRE_BACKENDS (comma-separated, e.g. "opencl,cuda")
/// names `backend`: its absence is then a failure, not a skip. scripts/test
/// requires opencl, which it installs (PoCL).
bool is_required(const std::string& backend);

/// Runs `body` once per selected device; failures name the device. With a
/// backend selected that has no devices, skips with the backend's reason
/// (fails if the backend is required); without a selection, fails when no
/// backend has a device.
void for_each_device(const std::function<void(Device&)>& body);

/// Reports the running case as skipped, with why; ctest reports its group
/// as skipped when every case in it skipped (support/case_outcomes.hpp).
void skip(const std::string& reason);

/// Whether `device`'s kernels run on a CPU: a CPU device, or an emulated
/// one (it computes on the host's OpenCL CPU device). Tests that size a
/// spinning kernel by the hardware that runs it ask this.
inline bool computes_on_cpu(const Device& device) {
  return device.info().type == DeviceType::cpu || !device.info().emulation.empty();
}

/// True when the selected backend has at least `count` devices; else skips.
bool have_devices(std::size_t count);

/// A second Runtime that reads tuning profiles from `profiles` (and shares
/// the tests' compile cache), with its counterpart of `device`.
struct ProfiledRuntime {
  std::unique_ptr<Runtime> runtime;
  Device* device = nullptr;
};
ProfiledRuntime runtime_with_profiles(const std::filesystem::path& profiles, const Device& device);

/// Executor options over the selected devices, the other settings defaulted.
ExecutorOptions on_selected_devices();
/// Over the first selected device only, with `host_threads` host threads
/// (0: the executor's default).
ExecutorOptions on_first_device(unsigned host_threads = 0);

/// A kernel from tests/kernels/conformance.cl, built (and cached) for `device`.
std::shared_ptr<Kernel> conformance_kernel(Device& device, const std::string& name,
                                           const std::string& options = "");

/// Runs the saxpy sample kernel on `device` and checks the result: proves the
/// runtime still works after an error.
void check_saxpy_works(Device& device, Runtime& owner = runtime());

template <class T>
std::unique_ptr<DeviceBuffer> upload(Device& device, Queue& queue, const std::vector<T>& values) {
  auto buffer = device.allocate(values.size() * sizeof(T));
  queue.write(*buffer, 0, values.data(), values.size() * sizeof(T));
  queue.finish();
  return buffer;
}

template <class T>
std::vector<T> download(Queue& queue, const DeviceBuffer& buffer, std::size_t count) {
  std::vector<T> values(count);
  queue.read(buffer, 0, values.data(), count * sizeof(T));
  queue.finish();
  return values;
}

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace alloy::test
