// An OpenCL device within the context it shares with its platform's other devices.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "alloy/backend/device.hpp"
#include "opencl_api.hpp"

namespace alloy::opencl {

/// Whether the space-separated `extensions` (CL_DEVICE_EXTENSIONS) name `name`.
bool has_extension(const std::string& extensions, std::string_view name);

class OpenCLDevice final : public Device {
 public:
  OpenCLDevice(cl::Context context, cl::Device device, DeviceInfo info);

  const cl::Context& context() const { return context_; }
  const cl::Device& cl_device() const { return device_; }

  bool shares_memory_with(const Device& other) const override;
  /// Where the driver offers cl_khr_priority_hints.
  bool ranks_queues() const override { return priority_hints_; }

  /// A queue for the device's own housekeeping (mapping pinned memory).
  cl::CommandQueue& utility_queue();

 private:
  std::unique_ptr<Queue> do_create_queue(QueuePriority priority) override;
  std::unique_ptr<DeviceBuffer> do_allocate(std::size_t bytes) override;
  std::unique_ptr<HostBuffer> do_allocate_host(std::size_t bytes) override;
  std::shared_ptr<Program> do_build_program(const ProgramSource& source,
                                            const ComposedSource& composed) override;
  std::shared_ptr<Program> do_load_program(const ProgramSource& source,
                                           const ComposedSource& composed,
                                           std::span<const std::byte> binary) override;

  cl::Context context_;
  cl::Device device_;
  bool priority_hints_ = false;
  std::once_flag utility_queue_once_;
  cl::CommandQueue utility_queue_;
};

/// Everything alloy records about a device, read through clGetDeviceInfo.
DeviceInfo query_device_info(const cl::Device& device);

}  // namespace alloy::opencl
