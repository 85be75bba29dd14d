// Error translation shared by the CUDA and HIP backends.
#include "stream_check.hpp"

#include <string_view>

#include "alloy/error.hpp"
#include "alloy/log.hpp"

namespace alloy::stream {

bool is_sticky_fault(const std::string& name) {
  static constexpr std::string_view sticky[] = {
      "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_INVALID_ADDRESS_SPACE",
      "CUDA_ERROR_INVALID_PC",      "CUDA_ERROR_LAUNCH_FAILED",      "CUDA_ERROR_ILLEGAL_INSTRUCTION",
      "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_ASSERT",          "CUDA_ERROR_ECC_UNCORRECTABLE",
      "hipErrorIllegalAddress",     "hipErrorLaunchFailure",         "hipErrorAssert",
      "hipErrorECCNotCorrectable",  "hipErrorIllegalState",          "CUDA_ERROR_LAUNCH_TIMEOUT",
      "hipErrorLaunchTimeOut"};
  for (std::string_view code : sticky) {
    // Exact, or followed by a qualifier such as " (emulated)".
    if (name.starts_with(code) && (name.size() == code.size() || name[code.size()] == ' ')) return true;
  }
  return false;
}

std::string hint_for(const std::string& name) {
  if (is_sticky_fault(name)) {
    return "a kernel faulted, and the driver keeps this error for the rest of the process: every later "
           "call on this device fails with it, whatever the queue. Save what other devices computed and "
           "restart the program; check the kernel's indices (compute-sanitizer finds the access)";
  }
  if (name.find("OUT_OF_MEMORY") != std::string::npos || name.find("OutOfMemory") != std::string::npos) {
    return "the device is out of memory; free buffers or use smaller ones";
  }
  if (name.find("NO_DEVICE") != std::string::npos || name.find("NoDevice") != std::string::npos) {
    return "no GPU of this vendor is visible to this process";
  }
  if (name.find("LAUNCH") != std::string::npos || name.find("Launch") != std::string::npos) {
    return "the launch was refused (its block, shared memory or registers exceed what the device or the "
           "kernel allows); the device stays usable";
  }
  return {};
}

void check(const StreamApi& api, Status status, const char* call, const std::string& device) {
  if (status == api.success) return;
  const std::string name = api.status_name(status);
  throw BackendError(api.api, call, status, name, device, hint_for(name));
}

void check_in_destructor(const StreamApi& api, Status status, const char* call,
                         const std::string& device) {
  if (status == api.success) return;
  log_warning(api.api + " call " + call + " failed with " + api.status_name(status) + " on " +
              device + " while releasing; ignored");
}

}  // namespace alloy::stream
