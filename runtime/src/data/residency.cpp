// Replica allocation and eviction, and the device memory cap setting.
#include "residency.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "alloy/error.hpp"
#include "coherence.hpp"

namespace alloy::detail {
namespace {

// Shared by every executor: a buffer may move from one to another.
std::atomic<std::uint64_t> replica_serials{0};

}  // namespace

std::size_t Residency::capacity(std::size_t device) const {
  const std::size_t memory = devices_[device]->info().global_memory_bytes;
  return limits_[device] != 0 ? std::min(limits_[device], memory) : memory;
}

Residency::Residency(const std::vector<Device*>& devices, std::vector<std::size_t> limits, Coherence& coherence)
    : devices_(devices), limits_(std::move(limits)), coherence_(coherence), devices_state_(devices.size()) {}

void Residency::check_fits(const std::vector<BufferStorage*>& buffers, std::size_t device,
                           const std::function<std::string()>& task_label) const {
  const std::size_t limit = limits_[device];
  if (limit == 0) return;
  std::size_t needed = 0;
  for (BufferStorage* storage : buffers) needed += storage->size();
  if (needed <= limit) return;
  throw OutOfDeviceMemory(task_label() + " needs " + describe_bytes(needed) + " on device " +
                          std::to_string(device) + " (" + devices_[device]->info().name +
                          ") for its " + std::to_string(buffers.size()) +
                          " buffers, but the executor may use " + describe_bytes(limit) +
                          " there (ALLOY_DEVICE_MEMORY_LIMIT, ExecutorOptions::device_memory_limit or "
                          "ExecutorOptions::memory_share); split the work into "
                          "smaller buffers or raise the limit");
}

bool Residency::make_resident(const std::vector<Access>& accesses, std::size_t device,
                              const std::function<std::string()>& task_label, std::uint64_t task) {
  ++clock_;
  std::vector<BufferStorage*> buffers;
  for (const Access& access : accesses) {
    // Borrowed memory stays in host memory: it never gets a replica.
    if (!access.slice.storage->host_resident()) buffers.push_back(access.slice.storage.get());
  }
  std::sort(buffers.begin(), buffers.end());
  buffers.erase(std::unique(buffers.begin(), buffers.end()), buffers.end());
  check_fits(buffers, device, task_label);

  Device* const on = devices_[device];
  DeviceMemory& memory = devices_state_[device];
  std::vector<BufferStorage*> missing;
  std::size_t needed = 0;
  for (BufferStorage* storage : buffers) {
    if (!state_of(*storage).touch(on, clock_)) {
      missing.push_back(storage);
      needed += storage->size();
    }
  }
  if (const std::size_t limit = limits_[device]; limit != 0) {
    // The first task that had to wait keeps what it holds: two tasks that
    // cannot fit together would otherwise evict each other's replicas in turn.
    std::vector<BufferStorage*> keep = buffers;
    if (memory.reservation && memory.reservation->task != task) {
      keep.insert(keep.end(), memory.reservation->buffers.begin(), memory.reservation->buffers.end());
      std::sort(keep.begin(), keep.end());
    }
    // Memory being freed still counts: evict until what stays fits, then
    // wait for the rest if need be. All or nothing: a task never holds part
    // of what it needs while it waits.
    while (memory.used - memory.retiring + needed > limit) {
      if (!evict_one(device, keep)) break;
    }
    if (memory.used + needed > limit) {
      if (!memory.reservation) memory.reservation = Reservation{task, buffers};
      return false;
    }
  }
  for (BufferStorage* storage : missing) {
    const std::size_t bytes = storage->size();
    std::unique_ptr<DeviceBuffer> allocation;
    try {
      // A buffer of no bytes still needs a memory object to pass to kernels.
      allocation = on->allocate(std::max<std::size_t>(bytes, 1));
    } catch (const OutOfDeviceMemory&) {
      const bool evicted = evict_one(device, buffers);
      if (!evicted && memory.retiring == 0) {
        // The task fails: it keeps nothing for itself any more.
        if (memory.reservation && memory.reservation->task == task) {
          memory.reservation.reset();
          memory.reservation_ended = true;
        }
        throw;
      }
      return false;  // try again once memory has been freed
    }
    // Only a replica with memory is added: every one counts as used.
    state_of(*storage).add_replica(on, std::move(allocation), clock_, ++replica_serials);
    memory.used += bytes;
    memory.resident.insert(storage);
  }
  if (memory.reservation && memory.reservation->task == task) {
    memory.reservation.reset();
    memory.reservation_ended = true;
  }
  return true;
}

bool Residency::take_reservation_ended(std::size_t device) {
  return std::exchange(devices_state_[device].reservation_ended, false);
}

bool Residency::evict_one(std::size_t device, const std::vector<BufferStorage*>& keep) {
  Device* const on = devices_[device];
  BufferStorage* oldest = nullptr;
  std::uint64_t oldest_use = 0;
  for (BufferStorage* storage : devices_state_[device].resident) {
    if (std::binary_search(keep.begin(), keep.end(), storage)) continue;
    const Replica& candidate = *state_of(*storage).replica(on);
    if (candidate.host_writers != 0) continue;
    const std::uint64_t last_use = candidate.last_use;
    if (!oldest || last_use < oldest_use) {
      oldest = storage;
      oldest_use = last_use;
    }
  }
  if (!oldest) return false;
  Retirement retirement{device, oldest->size(), nullptr, coherence_.write_back(*oldest, device)};
  BufferState::Taken taken = state_of(*oldest).take_replica(on);
  retirement.events.insert(retirement.events.end(), taken.before_free.begin(), taken.before_free.end());
  retirement.memory = std::move(taken.memory);
  DeviceMemory& memory = devices_state_[device];
  memory.resident.erase(oldest);
  memory.retiring += retirement.bytes;
  started_.push_back(std::move(retirement));
  return true;
}

void Residency::freed(const Retirement& retirement) {
  DeviceMemory& memory = devices_state_[retirement.device];
  memory.used -= retirement.bytes;
  memory.retiring -= retirement.bytes;
}

void Residency::forget(BufferStorage& storage) {
  for (std::size_t d = 0; d < devices_.size(); ++d) {
    BufferState::Taken taken = state_of(storage).take_replica(devices_[d]);
    if (!taken.memory) continue;
    for (const std::shared_ptr<Event>& event : taken.before_free) event->wait();
    taken.memory.reset();
    devices_state_[d].used -= storage.size();
    devices_state_[d].resident.erase(&storage);
  }
}

std::optional<std::size_t> parse_byte_size(std::string_view text) {
  // from_chars takes no blanks and no sign, and reports overflow: " -1" and
  // 10^23 are mistakes, not "no cap".
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  std::uint64_t scale = 1;
  if (error == std::errc() && end - stop == 1) {
    switch (*stop) {
      case 'K': case 'k': scale = std::uint64_t{1} << 10; break;
      case 'M': case 'm': scale = std::uint64_t{1} << 20; break;
      case 'G': case 'g': scale = std::uint64_t{1} << 30; break;
      default: return std::nullopt;
    }
  } else if (error != std::errc() || stop != end) {
    return std::nullopt;
  }
  if (value == 0 || value > std::numeric_limits<std::size_t>::max() / scale) return std::nullopt;
  return static_cast<std::size_t>(value * scale);
}

std::optional<std::size_t> device_memory_limit_from_environment() {
  const char* text = std::getenv("ALLOY_DEVICE_MEMORY_LIMIT");
  if (!text || !*text) return std::nullopt;
  const std::optional<std::size_t> limit = parse_byte_size(text);
  if (!limit) {
    throw InvalidArgument(std::string("ALLOY_DEVICE_MEMORY_LIMIT=\"") + text +
                          "\" is not a size; use a positive byte count with an optional K, M or G "
                          "suffix and no blanks, e.g. 64M, below 16 EiB, or unset it");
  }
  return limit;
}

std::string describe_bytes(std::size_t bytes) {
  static constexpr const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace alloy::detail
