// Emulated devices as a stream-model table, and the emulated plugin's entry:
// devices whose memory is host memory, whose copies and kernels take the
// time a machine model gives them, on copy and compute engines that overlap
// as a GPU's do. Made only when ALLOY_EMULATED_DEVICES asks for them.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "alloy/emulated_kernels.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/plugin.hpp"
#include "emulated_engines.hpp"
#include "machine_model.hpp"
#include "stream_api.hpp"
#include "stream_platform.hpp"

namespace alloy::emulation {
namespace {

using stream::DevicePointer;
using stream::DeviceRef;
using stream::FunctionAttribute;
using stream::Handle;
using stream::Status;

enum EmulatedStatus : Status {
  emulated_success = 0,
  emulated_not_ready = 1,
  emulated_out_of_memory = 2,
  emulated_not_found = 3,
  emulated_invalid_value = 4,
};

/// One emulated device's engines and memory use. Never destroyed: streams
/// of any runtime made in this process may still point at them.
struct DeviceState {
  Engine to_device;
  Engine to_host_own;  ///< with one copy engine, to_device serves both ways
  Engine compute;
  std::size_t used_bytes = 0;
};

struct Allocation {
  int device;
  std::size_t bytes;
  bool owns_memory;
};

struct Function {
  std::string name;
  std::vector<std::size_t> argument_bytes;  ///< per parameter, what a launch copies
};

struct Module {
  std::string source;
  std::deque<Function> functions;
};

/// Everything the emulated driver knows, behind one lock.
struct Driver {
  std::mutex mutex;
  /// Replaced whole when a runtime reads ALLOY_EMULATED_DEVICES again;
  /// commands keep the one they started with.
  std::shared_ptr<const MachineModel> model = std::make_shared<const MachineModel>();
  std::deque<DeviceState> devices;
  std::map<DevicePointer, Allocation> allocations;
  /// Page-locked host ranges: allocate_host's and registered ones.
  std::map<std::uintptr_t, std::size_t> pinned;
  DevicePointer next_fake_address = DevicePointer{1} << 40;  // data=0: addresses only
};

Driver& driver() {
  static Driver instance;
  return instance;
}

thread_local int current_device = 0;

std::shared_ptr<const MachineModel> model() {
  std::lock_guard lock(driver().mutex);
  return driver().model;
}

DeviceState& device_state(int device) {
  std::lock_guard lock(driver().mutex);
  return driver().devices.at(static_cast<std::size_t>(device));
}

Engine& engine_to_host(int device) {
  DeviceState& state = device_state(device);
  return model()->copy_engines >= 2 ? state.to_host_own : state.to_device;
}

/// Up to the model's jitter, at random.
double jitter(const MachineModel& m) {
  if (m.jitter_seconds <= 0) return 0.0;
  thread_local std::minstd_rand random(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, m.jitter_seconds)(random);
}

bool is_pinned(const void* host, std::size_t bytes) {
  const auto address = reinterpret_cast<std::uintptr_t>(host);
  std::lock_guard lock(driver().mutex);
  const auto& pinned = driver().pinned;
  auto found = pinned.upper_bound(address);
  if (found == pinned.begin()) return false;
  --found;
  return address + bytes <= found->first + found->second;
}

/// A transfer between device memory and `host`: at the bus's speed from
/// page-locked memory, else at the model's pageable fraction of it.
double transfer_seconds(std::size_t bytes, bool to_device, const void* host) {
  const auto held = model();
  const MachineModel& m = *held;
  const double bus = to_device ? m.host_to_device_bytes_per_second : m.device_to_host_bytes_per_second;
  const double speed = is_pinned(host, bytes) ? bus : bus * m.pageable_fraction;
  return m.transfer_latency_seconds + static_cast<double>(bytes) / speed + jitter(m);
}

/// On-device work (fills, device copies) runs at device-memory speed: far
/// above the bus; modelled as 1 TB/s on the compute engine.
double on_device_seconds(std::size_t bytes) {
  return model()->launch_latency_seconds + static_cast<double>(bytes) * 1e-12;
}

void* host_address(DevicePointer address) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}

Stream& stream_of(Handle stream) { return *static_cast<Stream*>(stream); }

std::string status_name(Status status) {
  switch (status) {
    case emulated_success: return "EMULATED_SUCCESS";
    case emulated_not_ready: return "EMULATED_NOT_READY";
    case emulated_out_of_memory: return "EMULATED_ERROR_OUT_OF_MEMORY";
    case emulated_not_found: return "EMULATED_ERROR_NOT_FOUND";
    case emulated_invalid_value: return "EMULATED_ERROR_INVALID_VALUE";
    default: return "EMULATED_ERROR_UNKNOWN";
  }
}

Status device_info(int ordinal, DeviceInfo* info) {
  const auto held = model();
  const MachineModel& m = *held;
  info->type = DeviceType::gpu;
  info->name = "emulated-" + m.preset + "-" + std::to_string(ordinal);
  info->vendor = "alloy emulation";
  info->architecture = "emulated";
  info->driver_version = "alloy emulation 1";
  info->compute_units = m.compute_units;
  info->max_work_group_size = 1024;
  info->max_work_item_sizes = {1024, 1024, 64};
  info->max_group_counts = {2147483647, 65535, 65535};
  info->local_memory_bytes = 48 << 10;
  info->global_memory_bytes = m.memory_bytes;
  info->max_allocation_bytes = m.memory_bytes;
  info->sub_group_width = 32;
  info->copy_engines = m.copy_engines;
  info->emulation = m.describe();
  return emulated_success;
}

Status allocate(DevicePointer* address, std::size_t bytes) {
  std::lock_guard lock(driver().mutex);
  Driver& d = driver();
  DeviceState& state = d.devices.at(static_cast<std::size_t>(current_device));
  if (state.used_bytes + bytes > d.model->memory_bytes) return emulated_out_of_memory;
  const bool owns_memory = d.model->moves_data;
  if (owns_memory) {
    void* memory = std::malloc(std::max<std::size_t>(bytes, 1));
    if (memory == nullptr) return emulated_out_of_memory;
    *address = reinterpret_cast<std::uintptr_t>(memory);
  } else {
    *address = d.next_fake_address;
    d.next_fake_address += (bytes + 255) / 256 * 256 + 256;
  }
  d.allocations[*address] = {current_device, bytes, owns_memory};
  state.used_bytes += bytes;
  return emulated_success;
}

Status free_memory(DevicePointer address) {
  std::lock_guard lock(driver().mutex);
  Driver& d = driver();
  const auto found = d.allocations.find(address);
  if (found == d.allocations.end()) return emulated_not_found;
  d.devices.at(static_cast<std::size_t>(found->second.device)).used_bytes -= found->second.bytes;
  if (found->second.owns_memory) std::free(host_address(address));
  d.allocations.erase(found);
  return emulated_success;
}

/// A copy on the stream's device: `engine` busy for `seconds`, moving bytes if the model does.
Status submit_copy(Handle stream, Engine& engine, double seconds, void* to, const void* from,
                   std::size_t bytes) {
  const bool moves = model()->moves_data;
  stream_of(stream).submit([&engine, seconds, to, from, bytes, moves] {
    engine.occupy(seconds, [=] {
      if (moves && bytes != 0) std::memmove(to, from, bytes);
    });
  });
  return emulated_success;
}

template <class T>
Status submit_fill(DevicePointer to, T value, std::size_t count, Handle stream) {
  Stream& s = stream_of(stream);
  const bool moves = model()->moves_data;
  Engine& engine = device_state(s.device()).compute;
  const double seconds = on_device_seconds(count * sizeof(T));
  s.submit([&engine, seconds, to, value, count, moves] {
    engine.occupy(seconds, [=] {
      if (!moves) return;
      T* target = static_cast<T*>(host_address(to));
      std::fill(target, target + count, value);
    });
  });
  return emulated_success;
}

Status get_function(Handle* function, Handle module, const char* name) {
  auto& loaded = *static_cast<Module*>(module);
  const std::optional<KernelSignature> signature = find_kernel_signature(loaded.source, name);
  if (!signature) return emulated_not_found;
  Function& made = loaded.functions.emplace_back(Function{name, {}});
  for (const KernelParameter& parameter : signature->parameters) {
    made.argument_bytes.push_back(parameter.kind == KernelParameter::Kind::scalar && parameter.scalar_type
                                      ? size_of(*parameter.scalar_type)
                                      : 8);
  }
  *function = &made;
  return emulated_success;
}

Status launch(Handle function, const unsigned* grid, const unsigned* block, Handle stream, void** params) {
  const auto& kernel = *static_cast<const Function*>(function);
  KernelLaunch launch;
  for (int d = 0; d < 3; ++d) {
    launch.local[d] = block[d];
    launch.global[d] = std::size_t{grid[d]} * block[d];
  }
  // The parameters' storage is the caller's: copied now, as drivers do.
  for (std::size_t i = 0; i < kernel.argument_bytes.size(); ++i) {
    std::array<std::byte, 8> bytes{};
    std::memcpy(bytes.data(), params[i], std::min<std::size_t>(kernel.argument_bytes[i], 8));
    launch.arguments.push_back(bytes);
  }
  const auto held = model();
  const MachineModel& m = *held;
  launch.moves_data = m.moves_data;
  const std::optional<KernelModel> kernel_model = find_kernel(kernel.name);
  const double modelled = kernel_model && kernel_model->seconds
                              ? kernel_model->seconds(launch)
                              : m.seconds_per_item * static_cast<double>(launch.work_items());
  const double seconds = m.launch_latency_seconds + modelled + jitter(m);
  Stream& s = stream_of(stream);
  Engine& engine = device_state(s.device()).compute;
  s.submit([&engine, seconds, launch = std::move(launch), kernel_model] {
    engine.occupy(seconds, [&] {
      if (launch.moves_data && kernel_model && kernel_model->run) kernel_model->run(launch);
    });
  });
  return emulated_success;
}

stream::StreamApi make_api() {
  stream::StreamApi api;
  api.api = "emulated";
  api.backend = "emulated";
  api.compiler = "emulation (no compiler)";
  api.success = emulated_success;
  api.not_ready = emulated_not_ready;
  api.out_of_memory = emulated_out_of_memory;
  api.status_name = status_name;
  api.compile = stream::source_as_binary;

  api.device_count = {[](int* count) -> Status {
                        *count = model()->devices;
                        return emulated_success;
                      },
                      "emulatedGetDeviceCount"};
  api.device_info = {device_info, "emulatedGetDeviceInfo"};
  api.retain_context = {[](int ordinal, Handle* context) -> Status {
                          *context = reinterpret_cast<Handle>(static_cast<std::intptr_t>(ordinal + 1));
                          return emulated_success;
                        },
                        "emulatedRetainContext"};
  api.release_context = {[](int) -> Status { return emulated_success; }, "emulatedReleaseContext"};
  api.make_current = {[](const DeviceRef& device) -> Status {
                        current_device = device.ordinal;
                        return emulated_success;
                      },
                      "emulatedSetDevice"};

  api.allocate = {allocate, "emulatedMalloc"};
  api.free = {free_memory, "emulatedFree"};
  api.allocate_host = {[](void** data, std::size_t bytes) -> Status {
                         *data = std::malloc(std::max<std::size_t>(bytes, 1));
                         if (*data == nullptr) return emulated_out_of_memory;
                         std::lock_guard lock(driver().mutex);
                         driver().pinned[reinterpret_cast<std::uintptr_t>(*data)] = bytes;
                         return emulated_success;
                       },
                       "emulatedMallocHost"};
  api.free_host = {[](void* data) -> Status {
                     {
                       std::lock_guard lock(driver().mutex);
                       driver().pinned.erase(reinterpret_cast<std::uintptr_t>(data));
                     }
                     std::free(data);
                     return emulated_success;
                   },
                   "emulatedFreeHost"};
  api.register_host = {[](void* data, std::size_t bytes) -> Status {
                         // Page-locking takes the calling thread's time, as the real call does.
                         const auto held = model();
                         const MachineModel& m = *held;
                         std::this_thread::sleep_for(std::chrono::duration<double>(
                             static_cast<double>(bytes) / m.register_bytes_per_second));
                         std::lock_guard lock(driver().mutex);
                         auto [at, added] = driver().pinned.emplace(reinterpret_cast<std::uintptr_t>(data), bytes);
                         return added ? emulated_success : emulated_invalid_value;  // registered twice
                       },
                       "emulatedHostRegister"};
  api.unregister_host = {[](void* data) -> Status {
                           std::lock_guard lock(driver().mutex);
                           return driver().pinned.erase(reinterpret_cast<std::uintptr_t>(data)) == 1
                                      ? emulated_success
                                      : emulated_not_found;
                         },
                         "emulatedHostUnregister"};

  api.create_stream = {[](Handle* stream) -> Status {
                         *stream = new Stream(current_device);
                         return emulated_success;
                       },
                       "emulatedStreamCreate"};
  api.destroy_stream = {[](Handle stream) -> Status {
                          delete &stream_of(stream);
                          return emulated_success;
                        },
                        "emulatedStreamDestroy"};
  api.synchronize_stream = {[](Handle stream) -> Status {
                              stream_of(stream).drain();
                              return emulated_success;
                            },
                            "emulatedStreamSynchronize"};
  api.stream_wait_event = {[](Handle stream, Handle event) -> Status {
                             auto* waited = static_cast<StreamEvent*>(event);
                             if (waited->pending()) stream_of(stream).submit([waited] { waited->wait(); });
                             return emulated_success;
                           },
                           "emulatedStreamWaitEvent"};

  api.create_event = {[](Handle* event, bool timed) -> Status {
                        *event = new StreamEvent(timed);
                        return emulated_success;
                      },
                      "emulatedEventCreate"};
  api.destroy_event = {[](Handle event) -> Status {
                         delete static_cast<StreamEvent*>(event);
                         return emulated_success;
                       },
                       "emulatedEventDestroy"};
  api.record_event = {[](Handle event, Handle stream) -> Status {
                        auto* recorded = static_cast<StreamEvent*>(event);
                        recorded->recorded();
                        if (stream == nullptr) {
                          recorded->reached();  // the default stream has nothing queued
                        } else {
                          stream_of(stream).submit([recorded] { recorded->reached(); });
                        }
                        return emulated_success;
                      },
                      "emulatedEventRecord"};
  api.synchronize_event = {[](Handle event) -> Status {
                             static_cast<StreamEvent*>(event)->wait();
                             return emulated_success;
                           },
                           "emulatedEventSynchronize"};
  api.query_event = {[](Handle event) -> Status {
                       return static_cast<StreamEvent*>(event)->pending() ? emulated_not_ready
                                                                          : emulated_success;
                     },
                     "emulatedEventQuery"};
  api.elapsed_time = {[](float* milliseconds, Handle start, Handle end) -> Status {
                        const auto* first = static_cast<StreamEvent*>(start);
                        const auto* second = static_cast<StreamEvent*>(end);
                        if (!first->timed() || !second->timed()) return emulated_invalid_value;
                        if (first->reached_ns() < 0 || second->reached_ns() < 0) return emulated_not_ready;
                        *milliseconds = static_cast<float>(static_cast<double>(second->reached_ns() -
                                                                               first->reached_ns()) * 1e-6);
                        return emulated_success;
                      },
                      "emulatedEventElapsedTime"};

  api.copy_to_device = {[](DevicePointer dst, const void* src, std::size_t bytes, Handle stream) -> Status {
                          return submit_copy(stream, device_state(stream_of(stream).device()).to_device,
                                             transfer_seconds(bytes, true, src),
                                             host_address(dst), src, bytes);
                        },
                        "emulatedMemcpyHtoD"};
  api.copy_to_host = {[](void* dst, DevicePointer src, std::size_t bytes, Handle stream) -> Status {
                        return submit_copy(stream, engine_to_host(stream_of(stream).device()),
                                           transfer_seconds(bytes, false, dst),
                                           dst, host_address(src), bytes);
                      },
                      "emulatedMemcpyDtoH"};
  api.copy_on_device = {[](DevicePointer dst, DevicePointer src, std::size_t bytes, Handle stream) -> Status {
                          return submit_copy(stream, device_state(stream_of(stream).device()).compute,
                                             on_device_seconds(bytes), host_address(dst), host_address(src),
                                             bytes);
                        },
                        "emulatedMemcpyDtoD"};
  api.copy_peer = {[](DevicePointer dst, const DeviceRef&, DevicePointer src, const DeviceRef&,
                      std::size_t bytes, Handle stream) -> Status {
                     const auto held = model();
                     const MachineModel& m = *held;
                     // Between devices: over the bus, never through pageable memory.
                     const double seconds = m.transfer_latency_seconds +
                                            static_cast<double>(bytes) / m.device_to_host_bytes_per_second;
                     return submit_copy(stream, engine_to_host(stream_of(stream).device()), seconds,
                                        host_address(dst), host_address(src), bytes);
                   },
                   "emulatedMemcpyPeer"};
  api.fill8 = {[](DevicePointer dst, unsigned char value, std::size_t count, Handle stream) -> Status {
                 return submit_fill(dst, value, count, stream);
               },
               "emulatedMemsetD8"};
  api.fill16 = {[](DevicePointer dst, unsigned short value, std::size_t count, Handle stream) -> Status {
                  return submit_fill(dst, value, count, stream);
                },
                "emulatedMemsetD16"};
  api.fill32 = {[](DevicePointer dst, unsigned int value, std::size_t count, Handle stream) -> Status {
                  return submit_fill(dst, value, count, stream);
                },
                "emulatedMemsetD32"};

  api.load_module = {[](Handle* module, const void* image) -> Status {
                       *module = new Module{static_cast<const char*>(image), {}};
                       return emulated_success;
                     },
                     "emulatedModuleLoad"};
  api.unload_module = {[](Handle module) -> Status {
                         delete static_cast<Module*>(module);
                         return emulated_success;
                       },
                       "emulatedModuleUnload"};
  api.get_function = {get_function, "emulatedModuleGetFunction"};
  api.function_attribute = {[](int* value, FunctionAttribute which, Handle) -> Status {
                              *value = which == FunctionAttribute::max_threads_per_block ? 1024 : 0;
                              return emulated_success;
                            },
                            "emulatedFuncGetAttribute"};
  api.parameter_count = {[](std::size_t* count, Handle function) -> Status {
                           *count = static_cast<const Function*>(function)->argument_bytes.size();
                           return emulated_success;
                         },
                         "emulatedFuncGetParamInfo"};
  api.launch = {launch, "emulatedLaunchKernel"};
  return api;
}

const stream::StreamApi& api() {
  static const stream::StreamApi table = make_api();
  return table;
}

Platform* create_platform() noexcept {
  const char* spec = std::getenv("ALLOY_EMULATED_DEVICES");
  if (spec == nullptr || *spec == '\0') {
    return stream::create_platform(api(), "ALLOY_EMULATED_DEVICES is not set: emulated devices are made only "
                                          "when asked for, e.g. ALLOY_EMULATED_DEVICES=pcie5");
  }
  try {
    MachineModel parsed = parse_machine_model(spec);
    std::lock_guard lock(driver().mutex);
    while (driver().devices.size() < static_cast<std::size_t>(parsed.devices)) driver().devices.emplace_back();
    driver().model = std::make_shared<const MachineModel>(std::move(parsed));
  } catch (const std::exception& error) {
    return stream::create_platform(api(), std::string("ALLOY_EMULATED_DEVICES=") + spec + ": " + error.what());
  }
  return stream::create_platform(api(), "");
}

}  // namespace
}  // namespace alloy::emulation

ALLOY_DEFINE_PLUGIN(alloy::emulation::create_platform)
