// The calls in which the stream-model APIs (CUDA driver API, HIP module API)
// differ, as one table per API. Everything else - devices, queues, events,
// memory, programs - is one implementation over this table, so the code that
// drives AMD GPUs is the code that is tested on NVIDIA GPUs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "alloy/device_info.hpp"

namespace alloy::stream {

using Status = int;                  ///< CUresult or hipError_t
using DevicePointer = std::uint64_t;  ///< CUdeviceptr or hipDeviceptr_t
using Handle = void*;                 ///< a context, stream, event, module or function

/// A vendor call, with the vendor's name for it, which errors report.
template <class Signature>
struct Call;

template <class... Args>
struct Call<Status(Args...)> {
  Status (*function)(Args...) = nullptr;
  const char* name = "";

  Status operator()(Args... args) const { return function(args...); }
};

/// One device as the calls that need a device see it.
struct DeviceRef {
  int ordinal = 0;
  Handle context = nullptr;  ///< CUDA's primary context; unused by HIP
};

enum class FunctionAttribute { max_threads_per_block, static_shared_bytes };

/// What the runtime compiler (NVRTC, hiprtc) produced; never an exception,
/// so that offline checks can report every failure.
struct CompileResult {
  bool ok = false;
  std::string log;
  std::vector<std::byte> binary;  ///< what load_module takes
  std::string target;             ///< what it was compiled for, e.g. "sm_90" or "compute_90"
};

/// A `compile` for tables whose devices run no device code (emulations):
/// the "binary" is the source itself, NUL-terminated, in which the table
/// looks kernels and their parameters up when they are loaded.
inline CompileResult source_as_binary(const std::string& source, const std::string&, const std::string&,
                                      const std::string& architecture) {
  CompileResult result;
  result.ok = true;
  result.target = architecture;
  const auto* text = reinterpret_cast<const std::byte*>(source.c_str());
  result.binary.assign(text, text + source.size() + 1);
  return result;
}

struct DirectStorageApi;  // direct_storage_api.hpp

/// What add_callback is handed: run once, on a thread of the driver's.
using StreamCallback = std::function<void()>;

/// Runs and frees a callback that add_callback took; the tables' own
/// callbacks (whatever the API's signature) call it with their user data.
inline void run_stream_callback(void* callback) {
  const std::unique_ptr<StreamCallback> held(static_cast<StreamCallback*>(callback));
  (*held)();
}

struct StreamApi {
  std::string api;      ///< "CUDA" or "HIP", for messages
  std::string backend;  ///< "cuda" or "hip"
  std::string compiler;  ///< "NVRTC" or "hiprtc"
  Status success = 0;
  Status not_ready = 0;  ///< query_event's answer while the event is pending
  Status out_of_memory = 0;  ///< allocate's answer when the device is full
  /// register_host's answer for memory that is page-locked already, in
  /// whole or in part (registered before, or from allocate_host); success
  /// where the API has no such code.
  Status already_registered = 0;
  std::string (*status_name)(Status) = nullptr;

  Call<Status(int*)> device_count;
  /// Fills everything but `backend`.
  Call<Status(int ordinal, DeviceInfo*)> device_info;
  Call<Status(int ordinal, Handle* context)> retain_context;
  Call<Status(int ordinal)> release_context;
  /// Binds the device to the calling thread, as every other call expects.
  Call<Status(const DeviceRef&)> make_current;

  Call<Status(DevicePointer*, std::size_t)> allocate;
  Call<Status(DevicePointer)> free;
  Call<Status(void**, std::size_t)> allocate_host;
  Call<Status(void*)> free_host;
  /// Optional (null where the API cannot page-lock the caller's memory).
  Call<Status(void*, std::size_t)> register_host;
  Call<Status(void*)> unregister_host;

  /// A non-blocking stream of `priority`, within stream_priority_range
  /// (0 where the API has none).
  Call<Status(Handle*, int priority)> create_stream;
  /// The current device's stream priorities: lower numbers rank higher, as
  /// CUDA and HIP number them. Optional (null: streams are not ranked).
  Call<Status(int* least, int* greatest)> stream_priority_range;
  Call<Status(Handle)> destroy_stream;
  Call<Status(Handle)> synchronize_stream;
  Call<Status(Handle stream, Handle event)> stream_wait_event;
  /// Calls `callback` once the stream's work before it has completed, also
  /// when it failed (cuStreamAddCallback, hipStreamAddCallback: unlike
  /// cuLaunchHostFunc, they are called after a fault too). Takes the
  /// callback on success (run_stream_callback frees it). Optional.
  Call<Status(Handle stream, StreamCallback* callback)> add_callback;

  /// `timed`: the event will be one end of elapsed_time; else the API may
  /// skip its timestamp.
  Call<Status(Handle*, bool timed)> create_event;
  Call<Status(Handle)> destroy_event;
  Call<Status(Handle event, Handle stream)> record_event;
  Call<Status(Handle)> synchronize_event;
  Call<Status(Handle)> query_event;
  Call<Status(float* milliseconds, Handle start, Handle end)> elapsed_time;

  Call<Status(DevicePointer, const void*, std::size_t, Handle)> copy_to_device;
  Call<Status(void*, DevicePointer, std::size_t, Handle)> copy_to_host;
  Call<Status(DevicePointer, DevicePointer, std::size_t, Handle)> copy_on_device;
  Call<Status(DevicePointer, const DeviceRef&, DevicePointer, const DeviceRef&, std::size_t, Handle)>
      copy_peer;
  Call<Status(DevicePointer, unsigned char, std::size_t, Handle)> fill8;
  Call<Status(DevicePointer, unsigned short, std::size_t, Handle)> fill16;
  Call<Status(DevicePointer, unsigned int, std::size_t, Handle)> fill32;

  Call<Status(Handle* module, const void* image)> load_module;
  Call<Status(Handle module)> unload_module;
  Call<Status(Handle* function, Handle module, const char* name)> get_function;
  Call<Status(int*, FunctionAttribute, Handle function)> function_attribute;
  /// Each parameter's size in bytes, in order. Optional (null where the API
  /// cannot tell).
  Call<Status(std::vector<std::size_t>* sizes, Handle function)> parameter_sizes;
  Call<Status(Handle function, const unsigned* grid, const unsigned* block, Handle stream,
              void** params)>
      launch;

  /// Reads from files straight into device memory (GPUDirect Storage); null
  /// where the API has none (HIP).
  const DirectStorageApi* direct_storage = nullptr;

  /// Compiles composed source for a device architecture ("sm_90", "gfx90a").
  CompileResult (*compile)(const std::string& source, const std::string& name,
                           const std::string& options, const std::string& architecture) = nullptr;
};

}  // namespace alloy::stream
