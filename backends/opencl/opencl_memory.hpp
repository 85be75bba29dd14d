// OpenCL buffers: device memory, and pinned host memory mapped for the host.
#pragma once

#include "alloy/backend/memory.hpp"
#include "opencl_api.hpp"

namespace alloy::opencl {

class OpenCLDevice;

class OpenCLBuffer final : public DeviceBuffer {
 public:
  OpenCLBuffer(OpenCLDevice& device, std::size_t bytes);
  const cl::Buffer& buffer() const { return buffer_; }

 private:
  cl::Buffer buffer_;
};

/// CL_MEM_ALLOC_HOST_PTR memory kept mapped: the pinned-memory idiom that
/// OpenCL drivers turn into page-locked, DMA-able host memory.
class OpenCLHostBuffer final : public HostBuffer {
 public:
  OpenCLHostBuffer(OpenCLDevice& device, std::size_t bytes);
  ~OpenCLHostBuffer() override;
  void* data() override { return mapped_; }

 private:
  OpenCLDevice& device_;
  cl::Buffer buffer_;
  void* mapped_ = nullptr;
};

}  // namespace alloy::opencl
