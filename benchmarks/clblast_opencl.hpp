// CLHPP set up as CLBlast's baselines use it, and the OpenCL device behind
// an alloy device (by name): shared by bench_autotune and bench_kernels.
// Include only where ALLOY_HAVE_CLBLAST is defined.
#pragma once

#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <clblast.h>

#include <optional>
#include <string>
#include <vector>

namespace alloy::bench {

/// The first OpenCL device called `name`, on any platform.
inline std::optional<cl::Device> opencl_device(const std::string& name) {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  for (const cl::Platform& platform : platforms) {
    std::vector<cl::Device> devices;
    platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    for (const cl::Device& device : devices) {
      if (device.getInfo<CL_DEVICE_NAME>() == name) return device;
    }
  }
  return std::nullopt;
}

}  // namespace alloy::bench
