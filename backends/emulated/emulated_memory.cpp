// Memory, copies and fills of emulated devices.
#include "emulated_memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "emulated_driver.hpp"

namespace alloy::emulation {
namespace {

/// cuMemAlloc's alignment; also lets OpenCL use the memory in place.
constexpr std::size_t device_alignment = 256;

/// Null where the size, rounded up to the alignment, would not fit.
void* aligned_memory(std::size_t bytes) {
  if (bytes > std::numeric_limits<std::size_t>::max() - device_alignment) return nullptr;
  const std::size_t rounded = std::max<std::size_t>((bytes + device_alignment - 1) / device_alignment, 1) *
                              device_alignment;
  return std::aligned_alloc(device_alignment, rounded);
}

/// Whether [start, start + bytes) overlaps a page-locked range. Under the
/// driver's lock.
bool overlaps_pinned(std::uintptr_t start, std::size_t bytes) {
  const auto& pinned = driver().pinned;
  const auto after = pinned.lower_bound(start);
  if (after != pinned.end() && after->first - start < bytes) return true;
  if (after == pinned.begin()) return false;
  const auto before = std::prev(after);
  return start - before->first < before->second.bytes;
}

Engine& engine_to_device(int device) { return device_state(device).to_device; }

Engine& engine_to_host(int device) {
  DeviceState& state = device_state(device);
  return model()->copy_engines >= 2 ? state.to_host_own : state.to_device;
}

Engine& engine_between_devices(int device) {
  return model()->copy_engines >= 3 ? device_state(device).peer_own : engine_to_host(device);
}

/// A transfer between device memory and host memory: at the bus's speed
/// from page-locked memory, else at the model's pageable fraction of it.
double transfer_seconds(std::size_t bytes, bool to_device, bool pinned) {
  const auto held = model();
  const MachineModel& m = *held;
  const double bus = to_device ? m.host_to_device_bytes_per_second : m.device_to_host_bytes_per_second;
  const double speed = pinned ? bus : bus * m.pageable_fraction;
  return m.transfer_latency_seconds + static_cast<double>(bytes) / speed + jitter(m);
}

/// Fills and copies within a device: the bytes read and written at device
/// memory speed, on the compute engine.
double on_device_seconds(std::size_t bytes_moved) {
  const auto held = model();
  return held->launch_latency_seconds + static_cast<double>(bytes_moved) / held->memory_bytes_per_second;
}

/// Queues a copy that keeps `engine` busy for `seconds`, moving the bytes if
/// the model does. `keep` holds what the copy reads from until it has run.
void submit_copy(Stream& stream, Engine& engine, double seconds, void* to, const void* from, std::size_t bytes,
                 std::shared_ptr<const void> keep = nullptr) {
  const bool moves = model()->moves_data;
  stream.submit([&engine, seconds, to, from, bytes, moves, keep = std::move(keep)] {
    engine.occupy(seconds, [=] {
      if (moves && bytes != 0) std::memmove(to, from, bytes);
    });
  });
}

/// Until what `stream` holds now has run: a copy that is synchronous with
/// respect to the host.
void wait_for_stream_point(Stream& stream) {
  auto point = std::make_shared<StreamEvent>(false);
  const std::uint64_t record = point->record();
  stream.submit([point, record] { point->reached(record); });
  point->wait_for(record);
}

template <class T>
stream::Status submit_fill(DevicePointer to, T value, std::size_t count, Handle stream) {
  Stream& s = stream_of(stream);
  const bool moves = model()->moves_data;
  Engine& engine = device_state(s.device()).compute;
  const double seconds = on_device_seconds(count * sizeof(T));
  // A fill is a kernel of the driver's, ranked as the stream's kernels.
  s.submit([&engine, seconds, to, value, count, moves, priority = s.priority()] {
    engine.occupy(
        seconds,
        [=] {
          if (!moves) return;
          T* target = static_cast<T*>(host_address(to));
          std::fill(target, target + count, value);
        },
        priority);
  });
  return emulated_success;
}

}  // namespace

stream::Status allocate(DevicePointer* address, std::size_t bytes) {
  std::lock_guard lock(driver().mutex);
  Driver& d = driver();
  const int device = current_device();
  DeviceState& state = d.devices.at(static_cast<std::size_t>(device));
  if (bytes == 0) {
    // cuMemAlloc refuses an empty allocation; hipMalloc gives a null pointer.
    if (d.model->flavor == Flavor::cuda) return emulated_invalid_value;
    *address = 0;
    return emulated_success;
  }
  if (bytes > d.model->memory_bytes - state.used_bytes) return emulated_out_of_memory;
  const bool owns_memory = d.model->moves_data;
  if (owns_memory) {
    void* memory = aligned_memory(bytes);
    if (memory == nullptr) return emulated_out_of_memory;
    *address = reinterpret_cast<std::uintptr_t>(memory);
  } else {
    *address = d.next_fake_address;
    d.next_fake_address += (bytes + device_alignment - 1) / device_alignment * device_alignment + device_alignment;
  }
  d.allocations[*address] = {device, bytes, owns_memory};
  state.used_bytes += bytes;
  return emulated_success;
}

stream::Status free_memory(DevicePointer address) {
  if (address == 0 && model()->flavor == Flavor::hip) return emulated_success;  // hipFree(nullptr)
  int device = 0;
  {
    std::lock_guard lock(driver().mutex);
    const auto found = driver().allocations.find(address);
    if (found == driver().allocations.end()) return emulated_invalid_value;
    device = found->second.device;
  }
  // cuMemFree and hipFree wait for queued work first: every device's, as a
  // peer copy queued on another device may still read this memory.
  synchronize_streams(-1);
  std::lock_guard lock(driver().mutex);
  Driver& d = driver();
  const auto found = d.allocations.find(address);
  if (found == d.allocations.end()) return emulated_invalid_value;  // freed by another thread meanwhile
  d.devices.at(static_cast<std::size_t>(device)).used_bytes -= found->second.bytes;
  if (found->second.owns_memory) std::free(host_address(address));
  d.allocations.erase(found);
  return emulated_success;
}

stream::Status allocate_host(void** data, std::size_t bytes) {
  *data = aligned_memory(bytes);
  if (*data == nullptr) return emulated_out_of_memory;
  std::lock_guard lock(driver().mutex);
  driver().pinned[reinterpret_cast<std::uintptr_t>(*data)] = {bytes, true};
  return emulated_success;
}

stream::Status free_host(void* data) {
  // As hipHostFree does (and so that no queued copy reads freed memory).
  synchronize_streams(-1);
  {
    // Registered memory is the caller's: only unregister_host lets it go.
    std::lock_guard lock(driver().mutex);
    auto& pinned = driver().pinned;
    const auto found = pinned.find(reinterpret_cast<std::uintptr_t>(data));
    if (found == pinned.end() || !found->second.allocated) return emulated_invalid_value;
    pinned.erase(found);
  }
  std::free(data);
  return emulated_success;
}

stream::Status register_host(void* data, std::size_t bytes) {
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  if (data == nullptr || bytes == 0 || bytes > std::numeric_limits<std::uintptr_t>::max() - start) {
    return emulated_invalid_value;
  }
  {
    // Any overlap with page-locked memory, registered or allocated so, is
    // refused, as the drivers refuse it. The range is taken now, so that a
    // registration racing this one over the same bytes is refused too.
    std::lock_guard lock(driver().mutex);
    if (overlaps_pinned(start, bytes)) return emulated_host_memory_already_registered;
    driver().pinned[start] = {bytes, false};
  }
  // Page-locking takes the calling thread's time, as the real call does.
  const auto held = model();
  std::this_thread::sleep_for(
      std::chrono::duration<double>(static_cast<double>(bytes) / held->register_bytes_per_second));
  return emulated_success;
}

stream::Status unregister_host(void* data) {
  std::lock_guard lock(driver().mutex);
  auto& pinned = driver().pinned;
  const auto found = pinned.find(reinterpret_cast<std::uintptr_t>(data));
  if (found == pinned.end() || found->second.allocated) return emulated_host_memory_not_registered;
  pinned.erase(found);
  return emulated_success;
}

stream::Status copy_to_device(DevicePointer to, const void* from, std::size_t bytes, Handle stream) {
  Stream& s = stream_of(stream);
  const bool pinned = is_pinned(from, bytes);
  const double seconds = transfer_seconds(bytes, true, pinned);
  Engine& engine = engine_to_device(s.device());
  if (pinned) {
    submit_copy(s, engine, seconds, host_address(to), from, bytes);
  } else if (model()->flavor == Flavor::cuda) {
    // From pageable memory CUDA stages the bytes before returning: the
    // caller may reuse its memory at once.
    auto staged = std::make_shared<std::vector<std::byte>>();
    if (model()->moves_data) {
      const auto* bytes_from = static_cast<const std::byte*>(from);
      staged->assign(bytes_from, bytes_from + bytes);
    }
    submit_copy(s, engine, seconds, host_address(to), staged->data(), bytes, staged);
  } else {
    // HIP copies to or from memory that is not page-locked synchronously.
    submit_copy(s, engine, seconds, host_address(to), from, bytes);
    wait_for_stream_point(s);
  }
  return emulated_success;
}

stream::Status copy_to_host(void* to, DevicePointer from, std::size_t bytes, Handle stream) {
  Stream& s = stream_of(stream);
  const bool pinned = is_pinned(to, bytes);
  submit_copy(s, engine_to_host(s.device()), transfer_seconds(bytes, false, pinned), to, host_address(from), bytes);
  // Into pageable memory both drivers return only once the copy is done.
  if (!pinned) wait_for_stream_point(s);
  return emulated_success;
}

stream::Status copy_on_device(DevicePointer to, DevicePointer from, std::size_t bytes, Handle stream) {
  Stream& s = stream_of(stream);
  submit_copy(s, device_state(s.device()).compute, on_device_seconds(2 * bytes), host_address(to),
              host_address(from), bytes);
  return emulated_success;
}

stream::Status copy_peer(DevicePointer to, const stream::DeviceRef&, DevicePointer from, const stream::DeviceRef&,
                         std::size_t bytes, Handle stream) {
  const auto held = model();
  const MachineModel& m = *held;
  const double size = static_cast<double>(bytes);
  // Over a peer link where the model has one, else through host memory.
  const double seconds =
      m.peer_bytes_per_second > 0
          ? m.transfer_latency_seconds + size / m.peer_bytes_per_second
          : 2 * m.transfer_latency_seconds + size / m.device_to_host_bytes_per_second +
                size / m.host_to_device_bytes_per_second;
  Stream& s = stream_of(stream);
  submit_copy(s, engine_between_devices(s.device()), seconds + jitter(m), host_address(to), host_address(from),
              bytes);
  return emulated_success;
}

stream::Status fill8(DevicePointer to, unsigned char value, std::size_t count, Handle stream) {
  return submit_fill(to, value, count, stream);
}
stream::Status fill16(DevicePointer to, unsigned short value, std::size_t count, Handle stream) {
  return submit_fill(to, value, count, stream);
}
stream::Status fill32(DevicePointer to, unsigned int value, std::size_t count, Handle stream) {
  return submit_fill(to, value, count, stream);
}

}  // namespace alloy::emulation
