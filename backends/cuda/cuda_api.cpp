// The CUDA driver API as a stream-model table, and the CUDA plugin's entry.
#include <algorithm>

#include "alloy/plugin.hpp"
#include "cuda_compiler.hpp"
#include "cuda_driver.hpp"
#include "cufile_loader.hpp"
#include "stream_api.hpp"
#include "stream_platform.hpp"

namespace alloy::cuda {
namespace {

using stream::DevicePointer;
using stream::DeviceRef;
using stream::FunctionAttribute;
using stream::Handle;
using stream::Status;

const Driver& d() { return driver(); }

CUstream as_stream(Handle handle) { return static_cast<CUstream>(handle); }
CUevent as_event(Handle handle) { return static_cast<CUevent>(handle); }

std::string status_name(Status status) {
  const std::string name = error_name(static_cast<CUresult>(status));
  return name.empty() ? "unknown CUDA error" : name;
}

Status device_info(int ordinal, DeviceInfo* info) {
  CUdevice device = 0;
  if (CUresult s = d().cuDeviceGet(&device, ordinal); s != CUDA_SUCCESS) return s;
  char name[256] = {};
  if (CUresult s = d().cuDeviceGetName(name, sizeof name, device); s != CUDA_SUCCESS) return s;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    d().cuDeviceGetAttribute(&value, which, device);
    return value;
  };
  std::size_t memory = 0;
  if (CUresult s = d().cuDeviceTotalMem(&memory, device); s != CUDA_SUCCESS) return s;
  int driver_version = 0;
  d().cuDriverGetVersion(&driver_version);

  info->name = name;
  info->vendor = "NVIDIA";
  info->architecture = "sm_" + std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
                       std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  // Binaries depend on the compiler as much as on the driver: both go in.
  info->driver_version = "CUDA " + std::to_string(driver_version / 1000) + "." +
                         std::to_string(driver_version % 1000 / 10) + ", " + compiler_version();
  info->compute_units = static_cast<unsigned>(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  info->max_work_group_size = static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  info->max_work_item_sizes = {static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
                               static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                               static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z))};
  info->max_group_counts = {static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)),
                            static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                            static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z))};
  // Statically sized shared arrays are limited to this; more needs opt-in.
  info->local_memory_bytes =
      static_cast<std::size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  info->global_memory_bytes = memory;
  info->max_allocation_bytes = memory;  // CUDA has no smaller per-allocation limit
  info->sub_group_width = static_cast<unsigned>(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE));
  info->copy_engines = std::max(1, attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT));
  return CUDA_SUCCESS;
}

Status parameter_sizes(std::vector<std::size_t>* sizes, Handle function) {
  // Parameters are numbered densely: the first index that fails is the count.
  sizes->clear();
  for (std::size_t index = 0;; ++index) {
    std::size_t offset = 0;
    std::size_t size = 0;
    const CUresult status =
        d().cuFuncGetParamInfo(static_cast<CUfunction>(function), index, &offset, &size);
    if (status == CUDA_ERROR_INVALID_VALUE) return CUDA_SUCCESS;  // past the last parameter
    if (status != CUDA_SUCCESS) return status;
    sizes->push_back(size);
  }
}

stream::StreamApi make_api() {
  stream::StreamApi api;
  api.api = "CUDA";
  api.backend = "cuda";
  api.compiler = "NVRTC";
  api.success = CUDA_SUCCESS;
  api.not_ready = CUDA_ERROR_NOT_READY;
  api.out_of_memory = CUDA_ERROR_OUT_OF_MEMORY;
  api.already_registered = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  api.status_name = status_name;
  api.compile = compile;

  api.device_count = {[](int* count) -> Status { return d().cuDeviceGetCount(count); },
                      "cuDeviceGetCount"};
  api.device_info = {device_info, "cuDeviceGetAttribute"};
  api.retain_context = {[](int ordinal, Handle* context) -> Status {
                          CUdevice device = 0;
                          if (CUresult s = d().cuDeviceGet(&device, ordinal); s != CUDA_SUCCESS) return s;
                          CUcontext primary = nullptr;
                          const CUresult s = d().cuDevicePrimaryCtxRetain(&primary, device);
                          *context = primary;
                          return s;
                        },
                        "cuDevicePrimaryCtxRetain"};
  api.release_context = {[](int ordinal) -> Status {
                           CUdevice device = 0;
                           if (CUresult s = d().cuDeviceGet(&device, ordinal); s != CUDA_SUCCESS) return s;
                           return d().cuDevicePrimaryCtxRelease(device);
                         },
                         "cuDevicePrimaryCtxRelease"};
  api.make_current = {[](const DeviceRef& device) -> Status {
                        return d().cuCtxSetCurrent(static_cast<CUcontext>(device.context));
                      },
                      "cuCtxSetCurrent"};

  api.allocate = {[](DevicePointer* address, std::size_t bytes) -> Status {
                    CUdeviceptr pointer = 0;
                    const CUresult s = d().cuMemAlloc(&pointer, bytes);
                    *address = pointer;
                    return s;
                  },
                  "cuMemAlloc"};
  api.free = {[](DevicePointer address) -> Status { return d().cuMemFree(address); }, "cuMemFree"};
  api.allocate_host = {[](void** data, std::size_t bytes) -> Status {
                         // Portable: usable for transfers to any device's context.
                         return d().cuMemHostAlloc(data, bytes, CU_MEMHOSTALLOC_PORTABLE);
                       },
                       "cuMemHostAlloc"};
  api.free_host = {[](void* data) -> Status { return d().cuMemFreeHost(data); }, "cuMemFreeHost"};
  api.register_host = {[](void* data, std::size_t bytes) -> Status {
                         return d().cuMemHostRegister(data, bytes, CU_MEMHOSTREGISTER_PORTABLE);
                       },
                       "cuMemHostRegister"};
  api.unregister_host = {[](void* data) -> Status { return d().cuMemHostUnregister(data); },
                         "cuMemHostUnregister"};

  api.create_stream = {[](Handle* stream, int priority) -> Status {
                         CUstream created = nullptr;
                         // Non-blocking: no implicit ordering with the legacy default stream.
                         const CUresult s = d().cuStreamCreateWithPriority(&created, CU_STREAM_NON_BLOCKING, priority);
                         *stream = created;
                         return s;
                       },
                       "cuStreamCreateWithPriority"};
  api.stream_priority_range = {[](int* least, int* greatest) -> Status {
                                 return d().cuCtxGetStreamPriorityRange(least, greatest);
                               },
                               "cuCtxGetStreamPriorityRange"};
  api.destroy_stream = {[](Handle stream) -> Status { return d().cuStreamDestroy(as_stream(stream)); },
                        "cuStreamDestroy"};
  api.synchronize_stream = {
      [](Handle stream) -> Status { return d().cuStreamSynchronize(as_stream(stream)); },
      "cuStreamSynchronize"};
  api.stream_wait_event = {[](Handle stream, Handle event) -> Status {
                             return d().cuStreamWaitEvent(as_stream(stream), as_event(event), 0);
                           },
                           "cuStreamWaitEvent"};
  api.add_callback = {[](Handle stream, stream::StreamCallback* callback) -> Status {
                        return d().cuStreamAddCallback(
                            as_stream(stream),
                            [](CUstream, CUresult, void* user) { stream::run_stream_callback(user); },
                            callback, 0);
                      },
                      "cuStreamAddCallback"};

  api.create_event = {[](Handle* event, bool timed) -> Status {
                        CUevent created = nullptr;
                        // Blocking sync: a waiting host thread sleeps instead of spinning.
                        const unsigned flags =
                            CU_EVENT_BLOCKING_SYNC | (timed ? 0u : unsigned{CU_EVENT_DISABLE_TIMING});
                        const CUresult s = d().cuEventCreate(&created, flags);
                        *event = created;
                        return s;
                      },
                      "cuEventCreate"};
  api.destroy_event = {[](Handle event) -> Status { return d().cuEventDestroy(as_event(event)); },
                       "cuEventDestroy"};
  api.record_event = {[](Handle event, Handle stream) -> Status {
                        return d().cuEventRecord(as_event(event), as_stream(stream));
                      },
                      "cuEventRecord"};
  api.synchronize_event = {
      [](Handle event) -> Status { return d().cuEventSynchronize(as_event(event)); },
      "cuEventSynchronize"};
  api.query_event = {[](Handle event) -> Status { return d().cuEventQuery(as_event(event)); },
                     "cuEventQuery"};
  api.elapsed_time = {[](float* milliseconds, Handle start, Handle end) -> Status {
                        return d().cuEventElapsedTime(milliseconds, as_event(start), as_event(end));
                      },
                      "cuEventElapsedTime"};

  api.copy_to_device = {[](DevicePointer dst, const void* src, std::size_t bytes, Handle stream) -> Status {
                          return d().cuMemcpyHtoDAsync(dst, src, bytes, as_stream(stream));
                        },
                        "cuMemcpyHtoDAsync"};
  api.copy_to_host = {[](void* dst, DevicePointer src, std::size_t bytes, Handle stream) -> Status {
                        return d().cuMemcpyDtoHAsync(dst, src, bytes, as_stream(stream));
                      },
                      "cuMemcpyDtoHAsync"};
  api.copy_on_device = {[](DevicePointer dst, DevicePointer src, std::size_t bytes, Handle stream) -> Status {
                          return d().cuMemcpyDtoDAsync(dst, src, bytes, as_stream(stream));
                        },
                        "cuMemcpyDtoDAsync"};
  api.copy_peer = {[](DevicePointer dst, const DeviceRef& dst_device, DevicePointer src,
                      const DeviceRef& src_device, std::size_t bytes, Handle stream) -> Status {
                     return d().cuMemcpyPeerAsync(dst, static_cast<CUcontext>(dst_device.context), src,
                                                  static_cast<CUcontext>(src_device.context), bytes,
                                                  as_stream(stream));
                   },
                   "cuMemcpyPeerAsync"};
  api.fill8 = {[](DevicePointer dst, unsigned char value, std::size_t count, Handle stream) -> Status {
                 return d().cuMemsetD8Async(dst, value, count, as_stream(stream));
               },
               "cuMemsetD8Async"};
  api.fill16 = {[](DevicePointer dst, unsigned short value, std::size_t count, Handle stream) -> Status {
                  return d().cuMemsetD16Async(dst, value, count, as_stream(stream));
                },
                "cuMemsetD16Async"};
  api.fill32 = {[](DevicePointer dst, unsigned int value, std::size_t count, Handle stream) -> Status {
                  return d().cuMemsetD32Async(dst, value, count, as_stream(stream));
                },
                "cuMemsetD32Async"};

  api.load_module = {[](Handle* module, const void* image) -> Status {
                       CUmodule loaded = nullptr;
                       const CUresult s = d().cuModuleLoadData(&loaded, image);
                       *module = loaded;
                       return s;
                     },
                     "cuModuleLoadData"};
  api.unload_module = {[](Handle module) -> Status {
                         return d().cuModuleUnload(static_cast<CUmodule>(module));
                       },
                       "cuModuleUnload"};
  api.get_function = {[](Handle* function, Handle module, const char* name) -> Status {
                        CUfunction found = nullptr;
                        const CUresult s = d().cuModuleGetFunction(&found, static_cast<CUmodule>(module), name);
                        *function = found;
                        return s;
                      },
                      "cuModuleGetFunction"};
  api.function_attribute = {[](int* value, FunctionAttribute which, Handle function) -> Status {
                              const CUfunction_attribute attribute =
                                  which == FunctionAttribute::max_threads_per_block
                                      ? CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
                                      : CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
                              return d().cuFuncGetAttribute(value, attribute, static_cast<CUfunction>(function));
                            },
                            "cuFuncGetAttribute"};
  if (d().cuFuncGetParamInfo != nullptr) api.parameter_sizes = {parameter_sizes, "cuFuncGetParamInfo"};
  api.launch = {[](Handle function, const unsigned* grid, const unsigned* block, Handle stream,
                   void** params) -> Status {
                  return d().cuLaunchKernel(static_cast<CUfunction>(function), grid[0], grid[1], grid[2],
                                            block[0], block[1], block[2], 0, as_stream(stream),
                                            params, nullptr);
                },
                "cuLaunchKernel"};
  // GPUDirect Storage: files read into device memory (cufile_loader.cpp).
  api.direct_storage = &cufile_api();
  return api;
}

Platform* create_platform() noexcept {
  try {
    std::string problem = load_driver();
    if (problem.empty()) {
      int version = 0;
      d().cuDriverGetVersion(&version);
      const CompilerRelease compiler = compiler_release();
      problem = driver_floor_problem(version, compiler.major, compiler.minor);
    }
    // Built after loading, since the optional calls depend on the driver.
    static const stream::StreamApi api = make_api();
    return stream::create_platform(api, problem);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace
}  // namespace alloy::cuda

ALLOY_DEFINE_PLUGIN(alloy::cuda::create_platform)
