// Emulated devices as a stream-model table: devices whose memory is host memory, whose copies and kernels take the
// time a machine model gives them, on copy and compute engines that overlap
// as a GPU's do, following the CUDA or HIP driver's documented rules
// (docs/emulated.md). Made only when ALLOY_EMULATED_DEVICES asks for them.
#include <cstdlib>
#include <memory>
#include <system_error>

#include "emulated_api.hpp"
#include "emulated_driver.hpp"
#include "emulated_launch.hpp"
#include "emulated_memory.hpp"
#include "emulated_storage.hpp"
#include "machine_model.hpp"
#include "opencl_compute.hpp"
#include "stream_api.hpp"

namespace alloy::emulation {
namespace {

using stream::DeviceRef;

Status device_info(int ordinal, DeviceInfo* info) {
  const auto held = model();
  const MachineModel& m = *held;
  info->type = DeviceType::gpu;
  info->name = "emulated-" + m.preset + "-" + std::to_string(ordinal);
  info->vendor = "alloy emulation";
  info->architecture = "emulated";
  info->driver_version = "alloy emulation 2";
  info->compute_units = m.compute_units;
  info->max_work_group_size = 1024;
  info->max_work_item_sizes = {1024, 1024, 64};
  info->max_group_counts = {2147483647, 65535, 65535};
  info->local_memory_bytes = m.local_memory_bytes;
  info->global_memory_bytes = m.memory_bytes;
  info->max_allocation_bytes = m.memory_bytes;
  info->sub_group_width = m.warp_width;
  if (m.flavor == Flavor::hip) info->max_work_items_per_dimension = (std::size_t{1} << 32) - 1;
  info->copy_engines = m.copy_engines;
  const OpenclCompute& compute = OpenclCompute::get();
  info->emulation = m.describe() + (!m.moves_data                          ? ""
                                    : compute.unavailable_reason().empty() ? "; kernels computed on " +
                                                                                 compute.device_name()
                                                                           : "; kernels compute only with a "
                                                                             "host model");
  return emulated_success;
}

/// A failed kernel's error, which every later synchronisation on its device
/// returns (CUDA's sticky errors).
Status sticky_error(int device) {
  std::lock_guard lock(driver().mutex);
  return driver().devices.at(static_cast<std::size_t>(device)).sticky_error;
}

Status create_stream(Handle* handle, int priority) {
  auto stream = std::make_shared<Stream>(current_device(), priority);
  *handle = stream.get();
  std::lock_guard lock(driver().mutex);
  driver().streams.emplace(stream.get(), std::move(stream));
  return emulated_success;
}

/// The driver's stream for releases, started at the first; nullptr where no
/// thread can be started. One long-lived thread rather than a detached one
/// per release: glibc before 2.39 can fault in pthread_detach when the thread
/// it detaches is exiting at that moment (Debian 12's 2.36 did, under load).
Stream* release_stream() {
  std::lock_guard lock(driver().mutex);
  if (!driver().releases) {
    try {
      driver().releases = std::make_unique<Stream>(-1);
    } catch (const std::system_error&) {
      return nullptr;
    }
  }
  return driver().releases.get();
}

Status destroy_stream(Handle handle) {
  std::shared_ptr<Stream> stream;
  {
    std::lock_guard lock(driver().mutex);
    const auto found = driver().streams.find(&stream_of(handle));
    if (found == driver().streams.end()) return emulated_invalid_handle;
    stream = found->second;
  }
  const auto retire = [stream] {
    stream->drain();
    std::lock_guard lock(driver().mutex);
    driver().streams.erase(stream.get());
  };
  if (model()->flavor == Flavor::cuda) {
    // cuStreamDestroy returns at once; the stream is released once its work
    // is done. Where no thread can be started, waiting here is still right.
    if (Stream* releases = release_stream()) {
      releases->submit(retire);
    } else {
      retire();
    }
  } else {
    retire();  // hipStreamDestroy may wait for the stream's work, and this one does
  }
  return emulated_success;
}

Status record_event(Handle event, Handle stream) {
  std::shared_ptr<StreamEvent> recorded = static_cast<EventHandle*>(event)->event;
  const std::uint64_t record = recorded->record();
  if (stream == nullptr) {
    recorded->reached(record);  // the default stream has nothing queued
  } else {
    stream_of(stream).submit([recorded, record] { recorded->reached(record); });
  }
  return emulated_success;
}

/// True on a stream's thread while it runs a callback of add_callback's.
bool& in_stream_callback() {
  thread_local bool inside = false;
  return inside;
}

Status add_callback(Handle stream, stream::StreamCallback* callback) {
  const auto run = [callback] {
    in_stream_callback() = true;
    stream::run_stream_callback(callback);
    in_stream_callback() = false;
  };
  if (stream == nullptr) {
    run();  // the default stream has nothing queued
  } else {
    stream_of(stream).submit(run);
  }
  return emulated_success;
}

Status stream_wait_event(Handle stream, Handle event) {
  // The event's latest record at the time of the call, as cuStreamWaitEvent.
  std::shared_ptr<StreamEvent> waited = static_cast<EventHandle*>(event)->event;
  const std::uint64_t record = waited->latest_record();
  if (waited->pending()) stream_of(stream).submit([waited, record] { waited->wait_for(record); });
  return emulated_success;
}

Status elapsed_time(float* milliseconds, Handle start, Handle end) {
  const StreamEvent& first = event_of(start);
  const StreamEvent& second = event_of(end);
  if (!first.timed() || !second.timed()) return emulated_invalid_handle;
  if (first.latest_record() == 0 || second.latest_record() == 0) return emulated_invalid_handle;
  if (first.reached_ns() < 0 || second.reached_ns() < 0) return emulated_not_ready;
  *milliseconds = static_cast<float>(static_cast<double>(second.reached_ns() - first.reached_ns()) * 1e-6);
  return emulated_success;
}

stream::StreamApi make_api() {
  stream::StreamApi api;
  api.api = "emulated";
  api.backend = "emulated";
  api.compiler = "emulation (OpenCL C on the compute device)";
  api.success = emulated_success;
  api.not_ready = emulated_not_ready;
  api.out_of_memory = emulated_out_of_memory;
  api.already_registered = emulated_host_memory_already_registered;
  api.status_name = status_name;
  api.compile = compile;

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
                        // cuStreamAddCallback: "the callback must not make any CUDA API
                        // call", and such a call returns CUDA_ERROR_NOT_PERMITTED. Every
                        // call of the stream backend makes its device current first.
                        if (in_stream_callback() && model()->flavor == Flavor::cuda) return emulated_not_permitted;
                        current_device() = device.ordinal;
                        return emulated_success;
                      },
                      "emulatedSetDevice"};

  api.allocate = {allocate, "emulatedMalloc"};
  api.free = {free_memory, "emulatedFree"};
  api.allocate_host = {allocate_host, "emulatedMallocHost"};
  api.free_host = {free_host, "emulatedFreeHost"};
  api.register_host = {register_host, "emulatedHostRegister"};
  api.unregister_host = {unregister_host, "emulatedHostUnregister"};

  api.create_stream = {create_stream, "emulatedStreamCreateWithPriority"};
  api.stream_priority_range = {[](int* least, int* greatest) -> Status {
                                 // As CUDA reports on an H100, and as HIP numbers its three.
                                 *least = model()->flavor == Flavor::cuda ? 0 : 1;
                                 *greatest = model()->flavor == Flavor::cuda ? -5 : -1;
                                 return emulated_success;
                               },
                               "emulatedDeviceGetStreamPriorityRange"};
  api.destroy_stream = {destroy_stream, "emulatedStreamDestroy"};
  api.synchronize_stream = {[](Handle stream) -> Status {
                              stream_of(stream).drain();
                              return sticky_error(stream_of(stream).device());
                            },
                            "emulatedStreamSynchronize"};
  api.stream_wait_event = {stream_wait_event, "emulatedStreamWaitEvent"};
  api.add_callback = {add_callback, "emulatedStreamAddCallback"};

  api.create_event = {[](Handle* event, bool timed) -> Status {
                        *event = new EventHandle{std::make_shared<StreamEvent>(timed)};
                        return emulated_success;
                      },
                      "emulatedEventCreate"};
  api.destroy_event = {[](Handle event) -> Status {
                         // Streams that will signal it hold it until then.
                         delete static_cast<EventHandle*>(event);
                         return emulated_success;
                       },
                       "emulatedEventDestroy"};
  api.record_event = {record_event, "emulatedEventRecord"};
  api.synchronize_event = {[](Handle event) -> Status {
                             event_of(event).wait();
                             return sticky_error(current_device());
                           },
                           "emulatedEventSynchronize"};
  api.query_event = {[](Handle event) -> Status {
                       if (event_of(event).pending()) return emulated_not_ready;
                       return sticky_error(current_device());
                     },
                     "emulatedEventQuery"};
  api.elapsed_time = {elapsed_time, "emulatedEventElapsedTime"};

  api.copy_to_device = {copy_to_device, "emulatedMemcpyHtoDAsync"};
  api.copy_to_host = {copy_to_host, "emulatedMemcpyDtoHAsync"};
  api.copy_on_device = {copy_on_device, "emulatedMemcpyDtoDAsync"};
  api.copy_peer = {copy_peer, "emulatedMemcpyPeerAsync"};
  api.fill8 = {fill8, "emulatedMemsetD8Async"};
  api.fill16 = {fill16, "emulatedMemsetD16Async"};
  api.fill32 = {fill32, "emulatedMemsetD32Async"};

  api.load_module = {load_module, "emulatedModuleLoadData"};
  api.unload_module = {unload_module, "emulatedModuleUnload"};
  api.get_function = {get_function, "emulatedModuleGetFunction"};
  api.function_attribute = {function_attribute, "emulatedFuncGetAttribute"};
  api.parameter_sizes = {parameter_sizes, "emulatedFuncGetParamInfo"};
  api.launch = {launch, "emulatedLaunchKernel"};
  // GPUDirect Storage as modelled (emulated_storage.cpp).
  api.direct_storage = &storage_api();
  return api;
}

}  // namespace

const stream::StreamApi& api() {
  static const stream::StreamApi table = make_api();
  return table;
}

void use_machine_model(MachineModel model) {
  std::lock_guard lock(driver().mutex);
  while (driver().devices.size() < static_cast<std::size_t>(model.devices)) driver().devices.emplace_back();
  driver().model = std::make_shared<const MachineModel>(std::move(model));
}

}  // namespace alloy::emulation
