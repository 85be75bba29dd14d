// OpenCL programs and kernels.
#pragma once

#include <mutex>

#include "alloy/backend/program.hpp"
#include "opencl_api.hpp"

namespace alloy::opencl {

class OpenCLDevice;

/// Builds `program` for the one device, turning a failed build into a
/// CompileError carrying the build log.
void build_for_device(cl::Program& program, OpenCLDevice& device, const ProgramSource& source,
                      const std::string& options);

class OpenCLProgram final : public Program {
 public:
  OpenCLProgram(OpenCLDevice& device, ProgramSource source, cl::Program program);

  std::vector<std::byte> binary() const override;
  const cl::Program& program() const { return program_; }

 private:
  std::shared_ptr<Kernel> create_kernel(const std::string& name) override;

  OpenCLDevice& device_;
  cl::Program program_;
};

class OpenCLKernel final : public Kernel {
 public:
  OpenCLKernel(std::shared_ptr<Program> program, std::string name, KernelAttributes attributes,
               cl::Kernel kernel);

  /// clSetKernelArg changes the kernel object itself: argument setting and
  /// enqueue must happen under this lock to be safe across threads.
  std::mutex& launch_mutex() const { return launch_mutex_; }
  const cl::Kernel& kernel() const { return kernel_; }

 private:
  cl::Kernel kernel_;
  mutable std::mutex launch_mutex_;
};

}  // namespace alloy::opencl
