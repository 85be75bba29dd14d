// hiprtc: portable kernel source to an AMD code object for one architecture.
#include "hip_compiler.hpp"

#include "compiler_arguments.hpp"

#include <hip/hiprtc.h>

#include <vector>

namespace alloy::hip {

stream::CompileResult compile(const std::string& source, const std::string& name,
                              const std::string& options, const std::string& architecture) {
  stream::CompileResult result;
  result.target = architecture;
  hiprtcProgram program = nullptr;
  // A helper function written without INLINE is a host function to hiprtc,
  // and a kernel calling it fails to compile; OpenCL C has no such split.
  // Clang's pragma makes functions without an execution space host and
  // device ones (NVRTC's -default-device, which hiprtc lacks).
  const std::string wrapped = "#pragma clang force_cuda_host_device begin\n" + source +
                              "\n#pragma clang force_cuda_host_device end\n";
  hiprtcResult status =
      hiprtcCreateProgram(&program, wrapped.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (status != HIPRTC_SUCCESS) {
    result.log = std::string("hiprtcCreateProgram failed: ") + hiprtcGetErrorString(status);
    return result;
  }
  // Without a target hiprtc asks the (absent) GPU and fails with an empty log.
  const stream::CompilerArguments arguments(options, "--offload-arch=" + architecture);

  // hiprtc 5.2 declares the array non-const; it does not change it.
  status = hiprtcCompileProgram(program, arguments.count(), const_cast<const char**>(arguments.data()));
  std::size_t log_size = 0;
  hiprtcGetProgramLogSize(program, &log_size);
  result.log.resize(log_size);
  if (log_size > 0) hiprtcGetProgramLog(program, result.log.data());
  stream::trim_log(result.log);

  if (status == HIPRTC_SUCCESS) {
    std::size_t size = 0;
    hiprtcGetCodeSize(program, &size);
    result.binary.resize(size);
    status = hiprtcGetCode(program, reinterpret_cast<char*>(result.binary.data()));
    result.ok = status == HIPRTC_SUCCESS && size > 0;
  }
  if (!result.ok && result.log.empty()) result.log = hiprtcGetErrorString(status);
  hiprtcDestroyProgram(&program);
  return result;
}

std::string compiler_version() {
  int major = 0;
  int minor = 0;
  hiprtcVersion(&major, &minor);
  return "hiprtc " + std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace alloy::hip
