// What the emulated driver knows, shared by its parts: the machine model,
// each device's engines and memory use, allocations, page-locked host
// ranges and live streams, and the status codes its calls return.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "emulated_engines.hpp"
#include "machine_model.hpp"
#include "stream_api.hpp"

namespace alloy::emulation {

using stream::DevicePointer;
using stream::Handle;
using stream::Status;

/// The codes of the driver it stands in for (CUDA's numbers, which HIP
/// shares for these); status_name spells them as the flavor's driver does.
enum EmulatedStatus : Status {
  emulated_success = 0,
  emulated_invalid_value = 1,
  emulated_out_of_memory = 2,
  emulated_invalid_image = 200,
  emulated_invalid_handle = 400,
  emulated_not_found = 500,
  emulated_not_ready = 600,
  emulated_launch_out_of_resources = 701,
  emulated_host_memory_already_registered = 712,
  emulated_host_memory_not_registered = 713,
  emulated_launch_failed = 719,
  emulated_not_permitted = 800,
};

std::string status_name(Status status);

/// One emulated device's engines and memory use. Never destroyed: streams
/// of any runtime made in this process may still point at them.
struct DeviceState {
  Engine to_device;
  Engine to_host_own;  ///< with one copy engine, to_device serves both ways
  Engine peer_own;     ///< with three, peer copies have their own
  Engine compute;
  std::size_t used_bytes = 0;
  /// A kernel that failed while running makes every later synchronisation
  /// on its device fail, as a CUDA context's sticky errors do.
  Status sticky_error = emulated_success;
};

struct Allocation {
  int device;
  std::size_t bytes;
  bool owns_memory;
};

/// Page-locked host memory: from allocate_host (the driver's to free) or
/// registered (the caller's, only to unregister).
struct PinnedRange {
  std::size_t bytes;
  bool allocated;
};

struct Driver {
  std::mutex mutex;
  /// Replaced whole when a runtime reads ALLOY_EMULATED_DEVICES again;
  /// commands keep the one they started with.
  std::shared_ptr<const MachineModel> model = std::make_shared<const MachineModel>();
  std::deque<DeviceState> devices;
  std::map<DevicePointer, Allocation> allocations;
  /// Page-locked host ranges by start: allocate_host's and registered ones.
  std::map<std::uintptr_t, PinnedRange> pinned;
  /// Streams with work that may still touch memory, including destroyed
  /// ones still finishing theirs (CUDA's cuStreamDestroy returns at once).
  std::map<const Stream*, std::shared_ptr<Stream>> streams;
  /// Where destroyed streams finish their work and are let go, in turn:
  /// started at the first (release_stream).
  std::unique_ptr<Stream> releases;
  DevicePointer next_fake_address = DevicePointer{1} << 40;  // data=0: addresses only
};

/// The process's driver; never destroyed, as threads finishing destroyed
/// streams may outlive static destructors.
Driver& driver();
std::shared_ptr<const MachineModel> model();
DeviceState& device_state(int device);
/// The device the calling thread's calls act on (make_current).
int& current_device();

/// Up to the model's jitter, at random.
double jitter(const MachineModel& m);
/// Whether all of [host, host + bytes) is page-locked.
bool is_pinned(const void* host, std::size_t bytes);
/// The bytes from `address` to the end of the allocation that holds it; 0
/// when no allocation does.
std::size_t bytes_to_allocation_end(DevicePointer address);
/// Until every stream of `device` (every device for -1) has run what was
/// submitted to it: what cuMemFree and hipFree do before freeing.
void synchronize_streams(int device);

inline void* host_address(DevicePointer address) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}
inline Stream& stream_of(Handle stream) { return *static_cast<Stream*>(stream); }

/// The handle an event call takes: a reference to the event, which streams
/// that will signal it share.
struct EventHandle {
  std::shared_ptr<StreamEvent> event;
};
inline StreamEvent& event_of(Handle event) { return *static_cast<EventHandle*>(event)->event; }

}  // namespace alloy::emulation
