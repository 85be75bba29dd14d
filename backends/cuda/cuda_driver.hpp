// The CUDA driver API, opened at run time: a machine without NVIDIA's driver
// still loads this plugin and reports why it has no devices.
#pragma once

#include <cuda.h>

#include <string>

namespace alloy::cuda {

// Every driver call the backend makes. cuda.h maps some names to versioned
// symbols (cuMemAlloc -> cuMemAlloc_v2); the list is expanded after that
// mapping, so both the member types and the looked-up symbol names follow it.
#define ALLOY_CUDA_DRIVER_CALLS(X)                                                          \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuDeviceGetCount) X(cuDeviceGet)      \
  X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuMemAlloc) X(cuMemFree)                \
  X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemHostRegister) X(cuMemHostUnregister) X(cuStreamCreateWithPriority) X(cuCtxGetStreamPriorityRange) X(cuStreamDestroy)                   \
  X(cuStreamSynchronize) X(cuStreamWaitEvent) X(cuStreamAddCallback) X(cuEventCreate) X(cuEventDestroy)            \
  X(cuEventRecord) X(cuEventSynchronize) X(cuEventQuery) X(cuEventElapsedTime)              \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemcpyPeerAsync)      \
  X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async) X(cuModuleLoadData)            \
  X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuLaunchKernel)

#define ALLOY_CUDA_DECLARE_MEMBER(function) decltype(&::function) function = nullptr;

struct Driver {
  ALLOY_CUDA_DRIVER_CALLS(ALLOY_CUDA_DECLARE_MEMBER)
  /// CUDA 12.4 and later only: the parameter count of a kernel.
  decltype(&::cuFuncGetParamInfo) cuFuncGetParamInfo = nullptr;
};

#undef ALLOY_CUDA_DECLARE_MEMBER

/// The driver's functions; valid after load_driver() returned no problem.
const Driver& driver();

/// The driver's name for `status` ("CUDA_ERROR_ILLEGAL_ADDRESS"); empty where
/// the driver is not loaded or does not know the code.
std::string error_name(CUresult status);

/// "CUDA 12.4" for cuDriverGetVersion's (and CUDA_VERSION's) 12040.
std::string cuda_version_text(int version);

/// Why kernels from NVRTC `compiler_major`.`compiler_minor` cannot load on
/// a driver of `driver_version` (cuDriverGetVersion's form), in words for
/// alloy-info; empty when they can.
std::string driver_floor_problem(int driver_version, int compiler_major, int compiler_minor);

/// Opens `library` (libcuda.so.1 by default), looks up every call and runs
/// cuInit. Returns what went wrong, in words for alloy-info, or "" when the
/// driver is usable. Later calls return the first call's answer.
std::string load_driver(const char* library = "libcuda.so.1");

}  // namespace alloy::cuda
