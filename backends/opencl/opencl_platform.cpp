// The OpenCL plugin: every device of every installed OpenCL platform.
#include <string>
#include <vector>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "alloy/plugin.hpp"
#include "opencl_check.hpp"
#include "opencl_device.hpp"

namespace alloy::opencl {
namespace {

class OpenCLPlatform final : public OwningPlatform {
 public:
  OpenCLPlatform() {
    const detail::HandledErrorScope handled;  // failures become the reason
    try {
      enumerate();
    } catch (const std::exception& error) {
      add_problem(error.what());
    }
  }

  std::string_view name() const override { return "opencl"; }

 private:
  void enumerate() {
    std::vector<cl::Platform> platforms;
    check(cl::Platform::get(&platforms), "clGetPlatformIDs", "");
    for (const cl::Platform& platform : platforms) {
      try {
        add_devices_of(platform);
      } catch (const std::exception& error) {
        // One broken driver must not hide the devices of the others.
        add_problem(error.what());
      }
    }
    if (has_devices() && !problems().empty()) log_warning("OpenCL: " + problems());
  }

  void add_devices_of(const cl::Platform& platform) {
    const std::string platform_name = platform.getInfo<CL_PLATFORM_NAME>();
    std::vector<cl::Device> devices;
    const cl_int status = platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (status == CL_DEVICE_NOT_FOUND) return;
    check(status, "clGetDeviceIDs", platform_name);
    // One context per platform, holding all its devices, so their buffers and
    // events can be used on each other's queues.
    cl_int context_status = CL_SUCCESS;
    cl::Context context(devices, nullptr, nullptr, nullptr, &context_status);
    check(context_status, "clCreateContext", platform_name);
    for (const cl::Device& device : devices) {
      if (!device.getInfo<CL_DEVICE_AVAILABLE>()) continue;
      add_device(std::make_unique<OpenCLDevice>(context, device, query_device_info(device)));
    }
  }
};

Platform* create_platform() noexcept {
  // The constructor turns every enumeration failure into its reason; only
  // running out of memory can still throw here.
  try {
    return new OpenCLPlatform();
  } catch (...) {
    return nullptr;
  }
}

}  // namespace
}  // namespace alloy::opencl

ALLOY_DEFINE_PLUGIN(alloy::opencl::create_platform)
