// Error translation shared by the CUDA and HIP backends.
#include "stream_check.hpp"

#include "alloy/error.hpp"
#include "alloy/log.hpp"

namespace alloy::stream {
namespace {

std::string hint_for(const std::string& name) {
  if (name.find("OUT_OF_MEMORY") != std::string::npos || name.find("OutOfMemory") != std::string::npos) {
    return "the device is out of memory; free buffers or use smaller ones";
  }
  if (name.find("NO_DEVICE") != std::string::npos || name.find("NoDevice") != std::string::npos) {
    return "no GPU of this vendor is visible to this process";
  }
  if (name.find("LAUNCH") != std::string::npos || name.find("Launch") != std::string::npos) {
    return "the kernel failed or its launch was refused; later commands on this device may fail too";
  }
  return {};
}

}  // namespace

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
