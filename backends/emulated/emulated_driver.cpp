// The emulated driver's shared state and its status names.
#include "emulated_driver.hpp"

#include <random>
#include <vector>

namespace alloy::emulation {

Driver& driver() {
  static Driver* const instance = new Driver;
  return *instance;
}

std::shared_ptr<const MachineModel> model() {
  std::lock_guard lock(driver().mutex);
  return driver().model;
}

DeviceState& device_state(int device) {
  std::lock_guard lock(driver().mutex);
  return driver().devices.at(static_cast<std::size_t>(device));
}

int& current_device() {
  thread_local int device = 0;
  return device;
}

double jitter(const MachineModel& m) {
  if (m.jitter_seconds <= 0) return 0.0;
  thread_local std::minstd_rand random(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, m.jitter_seconds)(random);
}

bool is_pinned(const void* host, std::size_t bytes) {
  const auto address = reinterpret_cast<std::uintptr_t>(host);
  std::lock_guard lock(driver().mutex);
  const auto& pinned = driver().pinned;
  auto found = pinned.upper_bound(address);
  if (found == pinned.begin()) return false;
  --found;
  return address + bytes <= found->first + found->second.bytes;
}

std::size_t bytes_to_allocation_end(DevicePointer address) {
  std::lock_guard lock(driver().mutex);
  const auto& allocations = driver().allocations;
  auto found = allocations.upper_bound(address);
  if (found == allocations.begin()) return 0;
  --found;
  const DevicePointer end = found->first + found->second.bytes;
  return address < end ? static_cast<std::size_t>(end - address) : 0;
}

void synchronize_streams(int device) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard lock(driver().mutex);
    for (const auto& [key, stream] : driver().streams) {
      if (device < 0 || stream->device() == device) streams.push_back(stream);
    }
  }
  // Outside the driver's lock: their commands take it.
  for (const auto& stream : streams) stream->drain();
}

std::string status_name(Status status) {
  const bool cuda = model()->flavor == Flavor::cuda;
  const char* name = nullptr;
  switch (status) {
    case emulated_success: name = cuda ? "CUDA_SUCCESS" : "hipSuccess"; break;
    case emulated_invalid_value: name = cuda ? "CUDA_ERROR_INVALID_VALUE" : "hipErrorInvalidValue"; break;
    case emulated_out_of_memory: name = cuda ? "CUDA_ERROR_OUT_OF_MEMORY" : "hipErrorOutOfMemory"; break;
    case emulated_invalid_image: name = cuda ? "CUDA_ERROR_INVALID_IMAGE" : "hipErrorInvalidImage"; break;
    case emulated_invalid_handle: name = cuda ? "CUDA_ERROR_INVALID_HANDLE" : "hipErrorInvalidHandle"; break;
    case emulated_not_found: name = cuda ? "CUDA_ERROR_NOT_FOUND" : "hipErrorNotFound"; break;
    case emulated_not_ready: name = cuda ? "CUDA_ERROR_NOT_READY" : "hipErrorNotReady"; break;
    case emulated_launch_out_of_resources:
      name = cuda ? "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" : "hipErrorLaunchOutOfResources";
      break;
    case emulated_host_memory_already_registered:
      name = cuda ? "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED" : "hipErrorHostMemoryAlreadyRegistered";
      break;
    case emulated_host_memory_not_registered:
      name = cuda ? "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED" : "hipErrorHostMemoryNotRegistered";
      break;
    case emulated_launch_failed: name = cuda ? "CUDA_ERROR_LAUNCH_FAILED" : "hipErrorLaunchFailure"; break;
    case emulated_not_permitted: name = cuda ? "CUDA_ERROR_NOT_PERMITTED" : "hipErrorNotPermitted"; break;
    default: return "unknown status " + std::to_string(status) + " (emulated)";
  }
  return std::string(name) + " (emulated)";
}

}  // namespace alloy::emulation
