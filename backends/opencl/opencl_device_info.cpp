// Reads an OpenCL device's properties, including vendor extensions that name
// the architecture and warp/wavefront width.
#include <algorithm>

#include "opencl_check.hpp"
#include "opencl_device.hpp"

namespace alloy::opencl {
namespace {

/// A device and how to name it in errors while its properties are read.
struct QueriedDevice {
  const cl::Device& device;
  std::string label;
};

template <class T>
T device_value(const QueriedDevice& queried, cl_device_info what, const char* name) {
  T value{};
  check(clGetDeviceInfo(queried.device(), what, sizeof(T), &value, nullptr),
        std::string("clGetDeviceInfo(") + name + ")", queried.label);
  return value;
}

std::string device_string(const QueriedDevice& queried, cl_device_info what, const char* name) {
  std::string value;
  check(queried.device.getInfo(what, &value), std::string("clGetDeviceInfo(") + name + ")",
        queried.label);
  // Drivers count the terminating NUL in the length; some pad with spaces.
  while (!value.empty() && (value.back() == '\0' || value.back() == ' ')) value.pop_back();
  return value;
}


/// "sm_90" on NVIDIA, "gfx90a" on AMD, PoCL's LLVM target, else the device name.
std::string architecture_of(const QueriedDevice& device, const std::string& name,
                            const std::string& extensions) {
  if (has_extension(extensions, "cl_nv_device_attribute_query")) {
    const auto major = device_value<cl_uint>(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV,
                                             "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV");
    const auto minor = device_value<cl_uint>(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV,
                                             "CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV");
    std::string architecture = "sm_";
    architecture += std::to_string(major);
    architecture += std::to_string(minor);
    return architecture;
  }
  if (name.starts_with("gfx")) return name.substr(0, name.find(':'));  // "gfx90a:sramecc+:xnack-"
  const std::string version = device_string(device, CL_DEVICE_VERSION, "CL_DEVICE_VERSION");
  if (const auto hstr = version.find("HSTR: "); hstr != std::string::npos) {
    return version.substr(hstr + 6);  // PoCL: "pthread-x86_64-pc-linux-gnu-skylake-avx512"
  }
  return name;
}

std::optional<unsigned> sub_group_width_of(const QueriedDevice& device,
                                           const std::string& extensions) {
  if (has_extension(extensions, "cl_nv_device_attribute_query")) {
    return device_value<cl_uint>(device, CL_DEVICE_WARP_SIZE_NV, "CL_DEVICE_WARP_SIZE_NV");
  }
  if (has_extension(extensions, "cl_amd_device_attribute_query")) {
    return device_value<cl_uint>(device, CL_DEVICE_WAVEFRONT_WIDTH_AMD,
                                 "CL_DEVICE_WAVEFRONT_WIDTH_AMD");
  }
  return std::nullopt;
}

}  // namespace

bool has_extension(const std::string& extensions, std::string_view name) {
  std::string padded_list = " ";
  padded_list += extensions;
  padded_list += ' ';
  std::string padded_name = " ";
  padded_name += name;
  padded_name += ' ';
  return padded_list.find(padded_name) != std::string::npos;
}

DeviceInfo query_device_info(const cl::Device& cl_device) {
  DeviceInfo info;
  info.backend = "opencl";
  QueriedDevice queried{cl_device, "an OpenCL device"};
  info.name = device_string(queried, CL_DEVICE_NAME, "CL_DEVICE_NAME");
  queried.label = "OpenCL device " + info.name;
  const QueriedDevice& device = queried;
  const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS");
  info.vendor = device_string(device, CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR");
  info.architecture = architecture_of(device, info.name, extensions);
  const auto type = device_value<cl_device_type>(device, CL_DEVICE_TYPE, "CL_DEVICE_TYPE");
  info.type = (type & CL_DEVICE_TYPE_CPU) != 0   ? DeviceType::cpu
              : (type & CL_DEVICE_TYPE_GPU) != 0 ? DeviceType::gpu
                                                 : DeviceType::accelerator;
  info.driver_version = device_string(device, CL_DRIVER_VERSION, "CL_DRIVER_VERSION");
  info.compute_units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS,
                                             "CL_DEVICE_MAX_COMPUTE_UNITS");
  info.max_work_group_size = device_value<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                                                       "CL_DEVICE_MAX_WORK_GROUP_SIZE");
  std::vector<std::size_t> item_sizes;
  check(cl_device.getInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES, &item_sizes),
        "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)", queried.label);
  std::copy_n(item_sizes.begin(), std::min<std::size_t>(3, item_sizes.size()),
              info.max_work_item_sizes.begin());
  info.local_memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE,
                                                   "CL_DEVICE_LOCAL_MEM_SIZE");
  info.global_memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE,
                                                    "CL_DEVICE_GLOBAL_MEM_SIZE");
  info.max_allocation_bytes = device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                                     "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  info.sub_group_width = sub_group_width_of(device, extensions);
  info.fp64 = has_extension(extensions, "cl_khr_fp64");
  return info;
}

}  // namespace alloy::opencl
