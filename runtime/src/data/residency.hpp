// Which buffers have a replica on each device, within the memory the
// executor may use there (internal to the runtime).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/buffer.hpp"
#include "buffer_state.hpp"

namespace alloy::detail {

class Coherence;

/// Allocates the replicas a task needs on its device. When one does not fit
/// (under the executor's cap, or the device refuses the allocation), the
/// least recently used replicas the task does not need are evicted: the
/// bytes only they hold are copied home, and their memory is freed once
/// those copies and every command using it are done. Making room never
/// waits on the host: a task that must wait for evicted memory to be freed
/// is told so, and started again once it is.
class Residency {
 public:
  /// `limits`: bytes per device (0: only the device's own memory limits).
  Residency(const std::vector<Device*>& devices, std::vector<std::size_t> limits, Coherence& coherence);

  /// What replicas may take on `device`: the executor's limit, else the
  /// device's memory.
  std::size_t capacity(std::size_t device) const;
  /// What its replicas take on `device` now, those being freed included.
  std::size_t used(std::size_t device) const { return devices_state_[device].used; }

  /// An evicted replica's memory, to free once `events` completed.
  struct Retirement {
    std::size_t device;
    std::size_t bytes;
    std::unique_ptr<DeviceBuffer> memory;
    std::vector<std::shared_ptr<Event>> events;
  };

  /// Gives every buffer `accesses` touch a replica on `device` (borrowed,
  /// host-resident memory excepted), evicting as needed, for the executor's
  /// task `task`. False when the task must wait: for evicted memory to be
  /// freed (retirements are pending on the device), or for the first task
  /// that waited there, which keeps its replicas until it has started
  /// (take_reservation_ended then says so). OutOfDeviceMemory if the task
  /// cannot fit at all; `task_label` names it there.
  bool make_resident(const std::vector<Access>& accesses, std::size_t device,
                     const std::function<std::string()>& task_label, std::uint64_t task);
  /// Whether the task that kept its replicas on `device` has got all it
  /// needed since the last call: tasks waiting there may try again.
  bool take_reservation_ended(std::size_t device);
  /// Evictions started since the last call: the executor frees each once
  /// its events completed, then calls freed().
  std::vector<Retirement> take_retirements() { return std::exchange(started_, {}); }
  void freed(const Retirement& retirement);

  /// Frees the replicas on these devices of a buffer nobody can read any
  /// more, waiting for the commands using them (done, when wait() calls it).
  void forget(BufferStorage& storage);

 private:
  /// The first task on a device that had to wait for memory, and its buffers.
  struct Reservation {
    std::uint64_t task = 0;
    std::vector<BufferStorage*> buffers;  ///< sorted
  };
  struct DeviceMemory {
    std::size_t used = 0;      ///< replicas' bytes, retiring ones included
    std::size_t retiring = 0;  ///< of those, being freed
    std::set<BufferStorage*> resident;
    std::optional<Reservation> reservation;
    bool reservation_ended = false;
  };

  /// Starts evicting the least recently used replica on `device` that
  /// `keep` does not hold; false if there is none.
  bool evict_one(std::size_t device, const std::vector<BufferStorage*>& keep);
  void check_fits(const std::vector<BufferStorage*>& buffers, std::size_t device,
                  const std::function<std::string()>& task_label) const;

  const std::vector<Device*>& devices_;
  std::vector<std::size_t> limits_;  ///< per device; 0: only the device's own memory limits
  Coherence& coherence_;
  std::vector<DeviceMemory> devices_state_;
  std::vector<Retirement> started_;
  std::uint64_t clock_ = 0;  ///< counts tasks: orders replicas by last use
};

/// ALLOY_DEVICE_MEMORY_LIMIT: bytes, with an optional K, M or G suffix
/// (powers of 1024). nullopt when unset; InvalidArgument when malformed.
std::optional<std::size_t> device_memory_limit_from_environment();
/// "64M", "4096", "2G": a positive byte count with an optional K, M or G
/// suffix (powers of 1024); nothing for other text, 0 or overflow.
std::optional<std::size_t> parse_byte_size(std::string_view text);
/// "1.5 MiB": sizes in errors.
std::string describe_bytes(std::size_t bytes);

}  // namespace alloy::detail
