// Host-memory emulation of a stream-model API (see host_stream_api.hpp).
#include "host_stream_api.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "alloy/kernel_args.hpp"
#include "stream_platform.hpp"

namespace alloy::test {
namespace {

using stream::DevicePointer;
using stream::DeviceRef;
using stream::FunctionAttribute;
using stream::Handle;
using stream::Status;

struct Allocation {
  int device;
  std::size_t bytes;
};

struct HostEvent {
  std::int64_t recorded_ns = -1;
  bool timed = true;  // else elapsed_time refuses it, as the real APIs do
};

std::atomic<std::size_t> events_created{0};
std::atomic<std::size_t> timed_events_created{0};

struct HostKernel {
  const char* name;
  std::vector<std::size_t> parameter_bytes;
  void (*run)(const unsigned* grid, const unsigned* block, void** params);
};

/// Everything the emulated driver knows, behind one lock.
struct HostDriver {
  std::mutex mutex;
  HostStreamOptions options;
  std::map<DevicePointer, Allocation> allocations;
  std::map<int, std::size_t> used_bytes;
  std::string failing_call;
};

HostDriver& host() {
  static HostDriver driver;
  return driver;
}

thread_local int current_device = -1;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool injected(const char* call) {
  std::lock_guard lock(host().mutex);
  if (host().failing_call != call) return false;
  host().failing_call.clear();
  return true;
}

/// The allocation holding [address, address + bytes), or nothing.
const Allocation* allocation_of(DevicePointer address, std::size_t bytes) {
  auto& allocations = host().allocations;
  auto found = allocations.upper_bound(address);
  if (found == allocations.begin()) return nullptr;
  --found;
  if (address + bytes > found->first + found->second.bytes) return nullptr;
  return &found->second;
}

/// Device memory must belong to the current device, as with real drivers.
Status check_on_current(DevicePointer address, std::size_t bytes) {
  std::lock_guard lock(host().mutex);
  const Allocation* allocation = allocation_of(address, bytes);
  if (allocation == nullptr) return host_not_found;
  return allocation->device == current_device ? host_success : host_wrong_device;
}

Status check_anywhere(DevicePointer address, std::size_t bytes) {
  std::lock_guard lock(host().mutex);
  return allocation_of(address, bytes) != nullptr ? host_success : host_not_found;
}

template <class T>
T* memory(DevicePointer address) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(address));
}

template <class T>
T parameter(void** params, std::size_t index) {
  T value;
  std::memcpy(&value, params[index], sizeof(T));
  return value;
}

void run_saxpy(const unsigned* grid, const unsigned* block, void** params) {
  const int n = parameter<int>(params, 0);
  const float a = parameter<float>(params, 1);
  const float* x = memory<float>(parameter<DevicePointer>(params, 2));
  float* y = memory<float>(parameter<DevicePointer>(params, 3));
  const std::size_t items = std::size_t{grid[0]} * block[0];
  for (std::size_t i = 0; i < items; ++i) {
    if (static_cast<int>(i) < n) y[i] = a * x[i] + y[i];
  }
}

void run_record_geometry(const unsigned* grid, const unsigned* block, void** params) {
  int* out = memory<int>(parameter<DevicePointer>(params, 0));
  for (int d = 0; d < 3; ++d) {
    out[d] = static_cast<int>(grid[d]);
    out[3 + d] = static_cast<int>(block[d]);
  }
}

// Each as a CUDA compiler lays out the composed source: the declared
// parameters, then a slice's first group (docs/kernels.md, "Slices").
const HostKernel host_kernels[] = {
    {"saxpy", {4, 4, 8, 8, 4, 4, 4}, run_saxpy},
    {"record_geometry", {8, 4, 4, 4}, run_record_geometry},
};

std::string status_name(Status status) {
  switch (status) {
    case host_success: return "HOST_SUCCESS";
    case host_not_ready: return "HOST_NOT_READY";
    case host_out_of_memory: return "HOST_ERROR_OUT_OF_MEMORY";
    case host_not_found: return "HOST_ERROR_NOT_FOUND";
    case host_wrong_device: return "HOST_ERROR_WRONG_DEVICE";
    case host_injected_failure: return "HOST_ERROR_INJECTED";
    default: return "HOST_ERROR_UNKNOWN";
  }
}

Status device_info(int ordinal, DeviceInfo* info) {
  DeviceInfo filled{
      .backend = {},
      .name = std::string("host-stream-").append(std::to_string(ordinal)),
      .vendor = "alloy tests",
      .architecture = "host",
      .driver_version = "1",
      .compute_units = 1,
      .max_work_group_size = 1024,
      .max_work_item_sizes = {1024, 1024, 64},
      .max_group_counts = {2147483647, 65535, 65535},
      .local_memory_bytes = 48 << 10,
      .global_memory_bytes = host().options.memory_bytes,
      .max_allocation_bytes = host().options.memory_bytes,
      .sub_group_width = 32,
      .copy_engines = 1,
      .emulation = {},
  };
  *info = std::move(filled);
  return host_success;
}

Status record_event(Handle event, Handle) {
  // Streams run each command at once, so "recorded" means "reached now".
  static_cast<HostEvent*>(event)->recorded_ns = now_ns();
  return host_success;
}

Status launch(Handle function, const unsigned* grid, const unsigned* block, Handle, void** params) {
  if (injected("hostLaunch")) return host_injected_failure;
  const auto* kernel = static_cast<const HostKernel*>(function);
  // Buffer parameters must be memory of the current device.
  if (kernel->run == run_saxpy) {
    const int n = parameter<int>(params, 0);
    for (std::size_t i : {std::size_t{2}, std::size_t{3}}) {
      const Status status = check_on_current(parameter<DevicePointer>(params, i), n * sizeof(float));
      if (status != host_success) return status;
    }
  }
  kernel->run(grid, block, params);
  return host_success;
}

stream::StreamApi make_api() {
  stream::StreamApi api;
  api.api = "HostStream";
  api.backend = "hoststream";
  api.compiler = "host compiler";
  api.success = host_success;
  api.not_ready = host_not_ready;
  api.out_of_memory = host_out_of_memory;
  api.status_name = status_name;
  api.compile = stream::source_as_binary;

  api.device_count = {[](int* count) -> Status {
                        *count = host().options.device_count;
                        return host_success;
                      },
                      "hostGetDeviceCount"};
  api.device_info = {device_info, "hostGetDeviceInfo"};
  api.retain_context = {[](int ordinal, Handle* context) -> Status {
                          *context = reinterpret_cast<Handle>(static_cast<std::intptr_t>(ordinal + 1));
                          return host_success;
                        },
                        "hostRetainContext"};
  api.release_context = {[](int) -> Status { return host_success; }, "hostReleaseContext"};
  api.make_current = {[](const DeviceRef& device) -> Status {
                        current_device = device.ordinal;
                        return host_success;
                      },
                      "hostSetDevice"};

  api.allocate = {[](DevicePointer* address, std::size_t bytes) -> Status {
                    if (injected("hostMalloc")) return host_injected_failure;
                    std::lock_guard lock(host().mutex);
                    std::size_t& used = host().used_bytes[current_device];
                    if (used + bytes > host().options.memory_bytes) return host_out_of_memory;
                    *address = reinterpret_cast<std::uintptr_t>(std::malloc(bytes));
                    host().allocations[*address] = {current_device, bytes};
                    used += bytes;
                    return host_success;
                  },
                  "hostMalloc"};
  api.free = {[](DevicePointer address) -> Status {
                std::lock_guard lock(host().mutex);
                auto found = host().allocations.find(address);
                if (found == host().allocations.end()) return host_not_found;
                if (found->second.device != current_device) return host_wrong_device;
                host().used_bytes[current_device] -= found->second.bytes;
                host().allocations.erase(found);
                std::free(memory<void>(address));
                return host_success;
              },
              "hostFree"};
  api.allocate_host = {[](void** data, std::size_t bytes) -> Status {
                         *data = std::malloc(bytes);
                         return host_success;
                       },
                       "hostMallocHost"};
  api.free_host = {[](void* data) -> Status {
                     std::free(data);
                     return host_success;
                   },
                   "hostFreeHost"};

  api.create_stream = {[](Handle* stream, int) -> Status {
                         *stream = new int(current_device);
                         return host_success;
                       },
                       "hostStreamCreate"};
  api.destroy_stream = {[](Handle stream) -> Status {
                          delete static_cast<int*>(stream);
                          return host_success;
                        },
                        "hostStreamDestroy"};
  api.synchronize_stream = {[](Handle) -> Status { return host_success; }, "hostStreamSynchronize"};
  api.stream_wait_event = {[](Handle, Handle event) -> Status {
                             return static_cast<HostEvent*>(event)->recorded_ns >= 0 ? host_success
                                                                                     : host_not_found;
                           },
                           "hostStreamWaitEvent"};

  api.create_event = {[](Handle* event, bool timed) -> Status {
                        *event = new HostEvent{-1, timed};
                        ++events_created;
                        if (timed) ++timed_events_created;
                        return host_success;
                      },
                      "hostEventCreate"};
  api.destroy_event = {[](Handle event) -> Status {
                         delete static_cast<HostEvent*>(event);
                         return host_success;
                       },
                       "hostEventDestroy"};
  api.record_event = {record_event, "hostEventRecord"};
  api.synchronize_event = {[](Handle) -> Status { return host_success; }, "hostEventSynchronize"};
  api.query_event = {[](Handle event) -> Status {
                       return static_cast<HostEvent*>(event)->recorded_ns >= 0 ? host_success
                                                                               : host_not_ready;
                     },
                     "hostEventQuery"};
  api.elapsed_time = {[](float* milliseconds, Handle start, Handle end) -> Status {
                        const auto* first = static_cast<HostEvent*>(start);
                        const auto* second = static_cast<HostEvent*>(end);
                        if (!first->timed || !second->timed) return host_not_found;
                        if (first->recorded_ns < 0 || second->recorded_ns < 0) return host_not_ready;
                        *milliseconds = static_cast<float>(second->recorded_ns - first->recorded_ns) * 1e-6f;
                        return host_success;
                      },
                      "hostEventElapsedTime"};

  api.copy_to_device = {[](DevicePointer dst, const void* src, std::size_t bytes, Handle) -> Status {
                          if (const Status s = check_on_current(dst, bytes); s != host_success) return s;
                          std::memcpy(memory<void>(dst), src, bytes);
                          return host_success;
                        },
                        "hostMemcpyHtoD"};
  api.copy_to_host = {[](void* dst, DevicePointer src, std::size_t bytes, Handle) -> Status {
                        if (const Status s = check_on_current(src, bytes); s != host_success) return s;
                        std::memcpy(dst, memory<void>(src), bytes);
                        return host_success;
                      },
                      "hostMemcpyDtoH"};
  api.copy_on_device = {[](DevicePointer dst, DevicePointer src, std::size_t bytes, Handle) -> Status {
                          if (const Status s = check_on_current(dst, bytes); s != host_success) return s;
                          if (const Status s = check_on_current(src, bytes); s != host_success) return s;
                          std::memmove(memory<void>(dst), memory<void>(src), bytes);
                          return host_success;
                        },
                        "hostMemcpyDtoD"};
  api.copy_peer = {[](DevicePointer dst, const DeviceRef&, DevicePointer src, const DeviceRef&,
                      std::size_t bytes, Handle) -> Status {
                     if (const Status s = check_anywhere(dst, bytes); s != host_success) return s;
                     if (const Status s = check_anywhere(src, bytes); s != host_success) return s;
                     std::memmove(memory<void>(dst), memory<void>(src), bytes);
                     return host_success;
                   },
                   "hostMemcpyPeer"};
  api.fill8 = {[](DevicePointer dst, unsigned char value, std::size_t count, Handle) -> Status {
                 if (const Status s = check_on_current(dst, count); s != host_success) return s;
                 std::memset(memory<void>(dst), value, count);
                 return host_success;
               },
               "hostMemsetD8"};
  api.fill16 = {[](DevicePointer dst, unsigned short value, std::size_t count, Handle) -> Status {
                  if (const Status s = check_on_current(dst, count * 2); s != host_success) return s;
                  for (std::size_t i = 0; i < count; ++i) memory<unsigned short>(dst)[i] = value;
                  return host_success;
                },
                "hostMemsetD16"};
  api.fill32 = {[](DevicePointer dst, unsigned int value, std::size_t count, Handle) -> Status {
                  if (const Status s = check_on_current(dst, count * 4); s != host_success) return s;
                  for (std::size_t i = 0; i < count; ++i) memory<unsigned int>(dst)[i] = value;
                  return host_success;
                },
                "hostMemsetD32"};

  api.load_module = {[](Handle* module, const void* image) -> Status {
                       *module = new std::string(static_cast<const char*>(image));
                       return host_success;
                     },
                     "hostModuleLoad"};
  api.unload_module = {[](Handle module) -> Status {
                         delete static_cast<std::string*>(module);
                         return host_success;
                       },
                       "hostModuleUnload"};
  api.get_function = {[](Handle* function, Handle module, const char* name) -> Status {
                        const auto declared = declared_kernel_names(*static_cast<std::string*>(module));
                        for (const HostKernel& kernel : host_kernels) {
                          if (std::string(name) == kernel.name &&
                              std::find(declared.begin(), declared.end(), name) != declared.end()) {
                            *function = const_cast<HostKernel*>(&kernel);
                            return host_success;
                          }
                        }
                        return host_not_found;
                      },
                      "hostModuleGetFunction"};
  api.function_attribute = {[](int* value, FunctionAttribute which, Handle) -> Status {
                              *value = which == FunctionAttribute::max_threads_per_block ? 1024 : 0;
                              return host_success;
                            },
                            "hostFuncGetAttribute"};
  api.parameter_sizes = {[](std::vector<std::size_t>* sizes, Handle function) -> Status {
                           *sizes = static_cast<const HostKernel*>(function)->parameter_bytes;
                           return host_success;
                         },
                         "hostFuncGetParamInfo"};
  api.launch = {launch, "hostLaunch"};
  return api;
}

}  // namespace

const stream::StreamApi& host_stream_api(const HostStreamOptions& options) {
  host().options = options;
  static const stream::StreamApi api = make_api();
  return api;
}

HostEventCounts host_event_counts() { return {events_created.load(), timed_events_created.load()}; }

void fail_next_call(const std::string& call) {
  std::lock_guard lock(host().mutex);
  host().failing_call = call;
}

std::unique_ptr<Platform> host_stream_platform(const HostStreamOptions& options) {
  return std::unique_ptr<Platform>(stream::create_platform(host_stream_api(options), ""));
}

}  // namespace alloy::test
