// OpenCL device operations: queues, memory, program builds.
#include "opencl_device.hpp"

#include "opencl_check.hpp"
#include "opencl_memory.hpp"
#include "opencl_program.hpp"
#include "opencl_queue.hpp"

namespace alloy::opencl {

OpenCLDevice::OpenCLDevice(cl::Context context, cl::Device device, DeviceInfo info)
    : Device(std::move(info)), context_(std::move(context)), device_(std::move(device)) {
  std::string extensions;
  check(device_.getInfo(CL_DEVICE_EXTENSIONS, &extensions), "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)", label());
  priority_hints_ = has_extension(extensions, "cl_khr_priority_hints");
}

bool OpenCLDevice::shares_memory_with(const Device& other) const {
  const auto* other_device = dynamic_cast<const OpenCLDevice*>(&other);
  return other_device != nullptr && other_device->context_() == context_();
}

cl::CommandQueue& OpenCLDevice::utility_queue() {
  std::call_once(utility_queue_once_, [this] {
    cl_int status = CL_SUCCESS;
    utility_queue_ = cl::CommandQueue(context_, device_, 0, &status);
    check(status, "clCreateCommandQueue", label());
  });
  return utility_queue_;
}

std::unique_ptr<Queue> OpenCLDevice::do_create_queue(QueuePriority priority) {
  return std::make_unique<OpenCLQueue>(*this, priority_hints_ ? priority : QueuePriority::normal);
}

std::unique_ptr<DeviceBuffer> OpenCLDevice::do_allocate(std::size_t bytes) {
  return std::make_unique<OpenCLBuffer>(*this, bytes);
}

std::unique_ptr<HostBuffer> OpenCLDevice::do_allocate_host(std::size_t bytes) {
  return std::make_unique<OpenCLHostBuffer>(*this, bytes);
}

std::shared_ptr<Program> OpenCLDevice::do_build_program(const ProgramSource& source,
                                                        const ComposedSource& composed) {
  cl_int status = CL_SUCCESS;
  cl::Program program(context_, composed.text, false, &status);
  check(status, "clCreateProgramWithSource(" + source.name + ")", label());
  build_for_device(program, *this, source, composed.compiler_options);
  return std::make_shared<OpenCLProgram>(*this, source, std::move(program));
}

std::shared_ptr<Program> OpenCLDevice::do_load_program(const ProgramSource& source,
                                                       const ComposedSource& composed,
                                                       std::span<const std::byte> binary) {
  cl_int status = CL_SUCCESS;
  cl_int binary_status = CL_SUCCESS;
  const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  const std::size_t size = binary.size();
  cl_program program = clCreateProgramWithBinary(context_(), 1, &device_(), &size, &bytes,
                                                 &binary_status, &status);
  check(status, "clCreateProgramWithBinary(" + source.name + ")", label());
  cl::Program wrapped(program);  // takes ownership
  check(binary_status, "clCreateProgramWithBinary(" + source.name + ") binary status", label());
  build_for_device(wrapped, *this, source, composed.compiler_options);
  return std::make_shared<OpenCLProgram>(*this, source, std::move(wrapped));
}

}  // namespace alloy::opencl
