// The HIP module API as a stream-model table, and the HIP plugin's entry.
#include <hip/hip_runtime_api.h>

#include "alloy/plugin.hpp"
#include "hip_compiler.hpp"
#include "stream_api.hpp"
#include "stream_platform.hpp"

namespace alloy::hip {
namespace {

using stream::DevicePointer;
using stream::DeviceRef;
using stream::FunctionAttribute;
using stream::Handle;
using stream::Status;

hipStream_t as_stream(Handle handle) { return static_cast<hipStream_t>(handle); }
hipEvent_t as_event(Handle handle) { return static_cast<hipEvent_t>(handle); }
hipDeviceptr_t as_pointer(DevicePointer address) {
  return reinterpret_cast<hipDeviceptr_t>(static_cast<std::uintptr_t>(address));
}

std::string status_name(Status status) { return hipGetErrorName(static_cast<hipError_t>(status)); }

Status device_info(int ordinal, DeviceInfo* info) {
  hipDeviceProp_t properties{};
  if (hipError_t s = hipGetDeviceProperties(&properties, ordinal); s != hipSuccess) return s;
  int driver_version = 0;
  if (hipDriverGetVersion(&driver_version) != hipSuccess) driver_version = 0;
  const std::string target = properties.gcnArchName;  // "gfx90a:sramecc+:xnack-"
  info->name = properties.name;
  info->vendor = "AMD";
  info->architecture = target.substr(0, target.find(':'));
  info->driver_version = "HIP " + std::to_string(driver_version) + ", " + compiler_version();
  info->compute_units = static_cast<unsigned>(properties.multiProcessorCount);
  info->max_work_group_size = static_cast<std::size_t>(properties.maxThreadsPerBlock);
  info->max_work_item_sizes = {static_cast<std::size_t>(properties.maxThreadsDim[0]),
                               static_cast<std::size_t>(properties.maxThreadsDim[1]),
                               static_cast<std::size_t>(properties.maxThreadsDim[2])};
  info->max_group_counts = {static_cast<std::size_t>(properties.maxGridSize[0]),
                            static_cast<std::size_t>(properties.maxGridSize[1]),
                            static_cast<std::size_t>(properties.maxGridSize[2])};
  info->local_memory_bytes = properties.sharedMemPerBlock;
  info->global_memory_bytes = properties.totalGlobalMem;
  info->max_allocation_bytes = properties.totalGlobalMem;
  info->sub_group_width = static_cast<unsigned>(properties.warpSize);
  // hipModuleLaunchKernel refuses grid x block of 2^32 or more per dimension.
  info->max_work_items_per_dimension = (std::size_t{1} << 32) - 1;
  // HIP reports no engine count on AMD (hipDeviceAttributeAsyncEngineCount
  // is CUDA-only), but every AMD GPU since GCN has at least two SDMA engines.
  info->copy_engines = 2;
  return hipSuccess;
}

stream::StreamApi make_api() {
  stream::StreamApi api;
  api.api = "HIP";
  api.backend = "hip";
  api.compiler = "hiprtc";
  api.success = hipSuccess;
  api.not_ready = hipErrorNotReady;
  api.out_of_memory = hipErrorOutOfMemory;
  api.already_registered = hipErrorHostMemoryAlreadyRegistered;
  api.status_name = status_name;
  // Architecture alone ("gfx90a"): the code object then loads whatever the
  // device's sramecc/xnack settings are.
  api.compile = compile;

  api.device_count = {[](int* count) -> Status { return hipGetDeviceCount(count); },
                      "hipGetDeviceCount"};
  api.device_info = {device_info, "hipGetDeviceProperties"};
  // HIP has no context handles: a device is made current by its ordinal.
  api.retain_context = {[](int ordinal, Handle* context) -> Status {
                          *context = nullptr;
                          return hipSetDevice(ordinal);
                        },
                        "hipSetDevice"};
  api.release_context = {[](int) -> Status { return hipSuccess; }, "(none)"};
  api.make_current = {[](const DeviceRef& device) -> Status { return hipSetDevice(device.ordinal); },
                      "hipSetDevice"};

  api.allocate = {[](DevicePointer* address, std::size_t bytes) -> Status {
                    void* pointer = nullptr;
                    const hipError_t s = hipMalloc(&pointer, bytes);
                    *address = reinterpret_cast<std::uintptr_t>(pointer);
                    return s;
                  },
                  "hipMalloc"};
  api.free = {[](DevicePointer address) -> Status { return hipFree(as_pointer(address)); },
              "hipFree"};
  api.allocate_host = {[](void** data, std::size_t bytes) -> Status {
                         return hipHostMalloc(data, bytes, hipHostMallocPortable);
                       },
                       "hipHostMalloc"};
  api.free_host = {[](void* data) -> Status { return hipHostFree(data); }, "hipHostFree"};
  api.register_host = {[](void* data, std::size_t bytes) -> Status {
                         return hipHostRegister(data, bytes, hipHostRegisterPortable);
                       },
                       "hipHostRegister"};
  api.unregister_host = {[](void* data) -> Status { return hipHostUnregister(data); }, "hipHostUnregister"};

  api.create_stream = {[](Handle* stream, int priority) -> Status {
                         hipStream_t created = nullptr;
                         const hipError_t s = hipStreamCreateWithPriority(&created, hipStreamNonBlocking, priority);
                         *stream = created;
                         return s;
                       },
                       "hipStreamCreateWithPriority"};
  api.stream_priority_range = {[](int* least, int* greatest) -> Status {
                                 return hipDeviceGetStreamPriorityRange(least, greatest);
                               },
                               "hipDeviceGetStreamPriorityRange"};
  api.destroy_stream = {[](Handle stream) -> Status { return hipStreamDestroy(as_stream(stream)); },
                        "hipStreamDestroy"};
  api.synchronize_stream = {
      [](Handle stream) -> Status { return hipStreamSynchronize(as_stream(stream)); },
      "hipStreamSynchronize"};
  api.stream_wait_event = {[](Handle stream, Handle event) -> Status {
                             return hipStreamWaitEvent(as_stream(stream), as_event(event), 0);
                           },
                           "hipStreamWaitEvent"};
  api.add_callback = {[](Handle stream, stream::StreamCallback* callback) -> Status {
                        return hipStreamAddCallback(
                            as_stream(stream),
                            [](hipStream_t, hipError_t, void* user) { stream::run_stream_callback(user); },
                            callback, 0);
                      },
                      "hipStreamAddCallback"};

  api.create_event = {[](Handle* event, bool timed) -> Status {
                        hipEvent_t created = nullptr;
                        // Blocking sync: a waiting host thread sleeps instead of spinning.
                        const unsigned flags = hipEventBlockingSync | (timed ? 0u : hipEventDisableTiming);
                        const hipError_t s = hipEventCreateWithFlags(&created, flags);
                        *event = created;
                        return s;
                      },
                      "hipEventCreateWithFlags"};
  api.destroy_event = {[](Handle event) -> Status { return hipEventDestroy(as_event(event)); },
                       "hipEventDestroy"};
  api.record_event = {[](Handle event, Handle stream) -> Status {
                        return hipEventRecord(as_event(event), as_stream(stream));
                      },
                      "hipEventRecord"};
  api.synchronize_event = {[](Handle event) -> Status { return hipEventSynchronize(as_event(event)); },
                           "hipEventSynchronize"};
  api.query_event = {[](Handle event) -> Status { return hipEventQuery(as_event(event)); },
                     "hipEventQuery"};
  api.elapsed_time = {[](float* milliseconds, Handle start, Handle end) -> Status {
                        return hipEventElapsedTime(milliseconds, as_event(start), as_event(end));
                      },
                      "hipEventElapsedTime"};

  api.copy_to_device = {[](DevicePointer dst, const void* src, std::size_t bytes, Handle stream) -> Status {
                          // HIP 5.2 declares the source non-const; it only reads it.
                          return hipMemcpyHtoDAsync(as_pointer(dst), const_cast<void*>(src), bytes,
                                                    as_stream(stream));
                        },
                        "hipMemcpyHtoDAsync"};
  api.copy_to_host = {[](void* dst, DevicePointer src, std::size_t bytes, Handle stream) -> Status {
                        return hipMemcpyDtoHAsync(dst, as_pointer(src), bytes, as_stream(stream));
                      },
                      "hipMemcpyDtoHAsync"};
  api.copy_on_device = {[](DevicePointer dst, DevicePointer src, std::size_t bytes, Handle stream) -> Status {
                          return hipMemcpyDtoDAsync(as_pointer(dst), as_pointer(src), bytes,
                                                    as_stream(stream));
                        },
                        "hipMemcpyDtoDAsync"};
  api.copy_peer = {[](DevicePointer dst, const DeviceRef& dst_device, DevicePointer src,
                      const DeviceRef& src_device, std::size_t bytes, Handle stream) -> Status {
                     return hipMemcpyPeerAsync(as_pointer(dst), dst_device.ordinal, as_pointer(src),
                                               src_device.ordinal, bytes, as_stream(stream));
                   },
                   "hipMemcpyPeerAsync"};
  api.fill8 = {[](DevicePointer dst, unsigned char value, std::size_t count, Handle stream) -> Status {
                 return hipMemsetD8Async(as_pointer(dst), value, count, as_stream(stream));
               },
               "hipMemsetD8Async"};
  api.fill16 = {[](DevicePointer dst, unsigned short value, std::size_t count, Handle stream) -> Status {
                  return hipMemsetD16Async(as_pointer(dst), value, count, as_stream(stream));
                },
                "hipMemsetD16Async"};
  api.fill32 = {[](DevicePointer dst, unsigned int value, std::size_t count, Handle stream) -> Status {
                  return hipMemsetD32Async(as_pointer(dst), static_cast<int>(value), count,
                                           as_stream(stream));
                },
                "hipMemsetD32Async"};

  api.load_module = {[](Handle* module, const void* image) -> Status {
                       hipModule_t loaded = nullptr;
                       const hipError_t s = hipModuleLoadData(&loaded, image);
                       *module = loaded;
                       return s;
                     },
                     "hipModuleLoadData"};
  api.unload_module = {[](Handle module) -> Status {
                         return hipModuleUnload(static_cast<hipModule_t>(module));
                       },
                       "hipModuleUnload"};
  api.get_function = {[](Handle* function, Handle module, const char* name) -> Status {
                        hipFunction_t found = nullptr;
                        const hipError_t s =
                            hipModuleGetFunction(&found, static_cast<hipModule_t>(module), name);
                        *function = found;
                        return s;
                      },
                      "hipModuleGetFunction"};
  api.function_attribute = {[](int* value, FunctionAttribute which, Handle function) -> Status {
                              const hipFunction_attribute attribute =
                                  which == FunctionAttribute::max_threads_per_block
                                      ? HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
                                      : HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
                              return hipFuncGetAttribute(value, attribute,
                                                         static_cast<hipFunction_t>(function));
                            },
                            "hipFuncGetAttribute"};
  // HIP 5.2 cannot tell a kernel's parameter count; the declaration check remains.
  api.launch = {[](Handle function, const unsigned* grid, const unsigned* block, Handle stream,
                   void** params) -> Status {
                  return hipModuleLaunchKernel(static_cast<hipFunction_t>(function), grid[0], grid[1],
                                               grid[2], block[0], block[1], block[2], 0,
                                               as_stream(stream), params, nullptr);
                },
                "hipModuleLaunchKernel"};
  return api;
}

Platform* create_platform() noexcept {
  try {
    static const stream::StreamApi api = make_api();
    const hipError_t status = hipInit(0);
    std::string problem;
    if (status != hipSuccess) {
      problem = std::string("hipInit failed with ") + hipGetErrorName(status) + " (" +
                std::to_string(status) + ")" +
                (status == hipErrorNoDevice || status == hipErrorInvalidDevice ||
                         status == hipErrorInsufficientDriver
                     ? ": no AMD GPU with a ROCm driver (/dev/kfd) is visible to this process"
                     : "");
    }
    return stream::create_platform(api, problem);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace
}  // namespace alloy::hip

ALLOY_DEFINE_PLUGIN(alloy::hip::create_platform)
