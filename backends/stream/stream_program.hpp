// A loaded CUDA/HIP module and the kernel functions in it.
#pragma once

#include "alloy/backend/program.hpp"
#include "stream_api.hpp"

namespace alloy::stream {

class StreamDevice;

class StreamProgram final : public Program {
 public:
  /// Loads `binary` (a cubin, PTX or AMD code object) into the device.
  StreamProgram(StreamDevice& device, ProgramSource source, std::vector<std::byte> binary);
  ~StreamProgram() override;

  std::vector<std::byte> binary() const override { return binary_; }

 private:
  std::shared_ptr<Kernel> create_kernel(const std::string& name) override;

  StreamDevice& device_;
  std::vector<std::byte> binary_;
  Handle module_ = nullptr;
};

/// Launches need no lock: the function handle is immutable and arguments
/// travel with each launch call.
class StreamKernel final : public Kernel {
 public:
  StreamKernel(std::shared_ptr<Program> program, std::string name, KernelAttributes attributes,
               Handle function);
  Handle function() const { return function_; }

 private:
  Handle function_;
};

}  // namespace alloy::stream
