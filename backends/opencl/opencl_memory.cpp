// Allocation of OpenCL device buffers and pinned host buffers.
#include "opencl_memory.hpp"

#include "alloy/error.hpp"
#include "opencl_check.hpp"
#include "opencl_device.hpp"

namespace alloy::opencl {

OpenCLBuffer::OpenCLBuffer(OpenCLDevice& device, std::size_t bytes) : DeviceBuffer(device, bytes) {
  cl_int status = CL_SUCCESS;
  buffer_ = cl::Buffer(device.context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE || status == CL_OUT_OF_RESOURCES) {
    throw OutOfDeviceMemory("OpenCL call clCreateBuffer failed with " +
                            std::string(error_name(status)) + " on " + device.label() + " for " +
                            std::to_string(bytes) + " bytes; free buffers or use smaller ones");
  }
  check(status, "clCreateBuffer(" + std::to_string(bytes) + " bytes)", device.label());
}

OpenCLHostBuffer::OpenCLHostBuffer(OpenCLDevice& device, std::size_t bytes)
    : HostBuffer(bytes), device_(device) {
  cl_int status = CL_SUCCESS;
  buffer_ = cl::Buffer(device.context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                       nullptr, &status);
  check(status, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR, " + std::to_string(bytes) + " bytes)",
        device.label());
  mapped_ = device.utility_queue().enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                    0, bytes, nullptr, nullptr, &status);
  check(status, "clEnqueueMapBuffer", device.label());
}

OpenCLHostBuffer::~OpenCLHostBuffer() {
  cl::CommandQueue& queue = device_.utility_queue();
  check_in_destructor(queue.enqueueUnmapMemObject(buffer_, mapped_), "clEnqueueUnmapMemObject",
                      device_.label());
  check_in_destructor(queue.finish(), "clFinish", device_.label());
}

}  // namespace alloy::opencl
