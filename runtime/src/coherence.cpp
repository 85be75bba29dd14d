// Replica validity, transfers between host and devices, and device lanes.
#include "coherence.hpp"

#include <algorithm>

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

using Events = Coherence::Events;
using PendingFill = BufferStorage::PendingFill;

/// Removes from `remaining` the parts `valid` covers, and returns those parts.
std::vector<ByteRange> take_covered(std::vector<ByteRange>& remaining, const IntervalSet& valid) {
  std::vector<ByteRange> covered;
  std::vector<ByteRange> still_missing;
  for (const ByteRange& range : remaining) {
    std::size_t cursor = range.begin;
    for (const ByteRange& gap : valid.missing(range)) {
      if (gap.begin > cursor) covered.push_back({cursor, gap.begin});
      still_missing.push_back(gap);
      cursor = gap.end;
    }
    if (cursor < range.end) covered.push_back({cursor, range.end});
  }
  remaining = std::move(still_missing);
  return covered;
}

/// Pending transfers into `range` that have not completed yet.
void add_pending(std::vector<PendingFill>& fills, ByteRange range, Events& waits) {
  std::erase_if(fills, [](const PendingFill& fill) { return fill.event->is_complete(); });
  for (const PendingFill& fill : fills) {
    if (fill.range.overlaps(range)) waits.push_back(fill.event);
  }
}

/// A write of `written` makes pending transfers into those bytes moot (the
/// writer waited for the ones into its own replica), but the bytes such a
/// transfer brings around them are still on their way: readers of those
/// must go on waiting for it.
void trim_pending(std::vector<PendingFill>& fills, ByteRange written) {
  std::vector<PendingFill> kept;
  kept.reserve(fills.size());
  for (PendingFill& fill : fills) {
    if (!fill.range.overlaps(written)) {
      kept.push_back(std::move(fill));
      continue;
    }
    if (fill.range.begin < written.begin) kept.push_back({{fill.range.begin, written.begin}, fill.event});
    if (written.end < fill.range.end) kept.push_back({{written.end, fill.range.end}, fill.event});
  }
  fills = std::move(kept);
}

void wait_on_queue(Queue& queue, const Events& events) {
  for (const auto& event : events) {
    if (!event->is_complete()) queue.wait_for(*event);
  }
}

/// Keeps the latest command per queue: on an in-order queue it completes last.
void record_use(BufferStorage::Replica& replica, Queue& queue, const std::shared_ptr<Event>& event) {
  for (auto& [used_on, last] : replica.uses) {
    if (used_on == &queue) {
      last = event;
      return;
    }
  }
  replica.uses.emplace_back(&queue, event);
}

}  // namespace

DeviceLanes::DeviceLanes(Device& device, unsigned compute_lanes) {
  for (unsigned i = 0; i < compute_lanes; ++i) compute_.push_back(device.create_queue());
  copy_in_ = device.create_queue();
  copy_out_ = device.create_queue();
}

Queue& DeviceLanes::next_compute() { return *compute_[next_compute_++ % compute_.size()]; }

void DeviceLanes::track(const std::shared_ptr<Event>& event) {
  // Forget completed commands now and then, so that a policy that never
  // asks for the count does not hold every event.
  if (in_flight_.size() >= 256 && in_flight_.size() % 256 == 0) in_flight();
  if (event) in_flight_.push_back(event);
}

std::size_t DeviceLanes::in_flight() {
  while (!in_flight_.empty() && in_flight_.front()->is_complete()) in_flight_.pop_front();
  return in_flight_.size();
}

std::size_t Coherence::index_of(const Device* device) const {
  const auto found = std::find(devices_.begin(), devices_.end(), device);
  return found == devices_.end() ? devices_.size() : static_cast<std::size_t>(found - devices_.begin());
}

BufferStorage::Replica& Coherence::replica(BufferStorage& storage, std::size_t device) {
  auto& replicas = storage.replicas();
  if (const auto found = replicas.find(devices_[device]); found != replicas.end()) {
    found->second.last_use = clock_;
    return found->second;
  }
  static const std::vector<Access> nothing;
  const std::vector<Access>& keep = reserved_for_ ? *reserved_for_ : nothing;
  Residency& memory = residency_[device];
  while (memory.limit != 0 && memory.used + storage.size() > memory.limit) {
    if (!evict_one(device, keep)) break;  // reserve() has checked that the task fits
  }
  std::unique_ptr<DeviceBuffer> allocation;
  for (;;) {
    try {
      // A buffer of no bytes still needs a memory object to pass to kernels.
      allocation = devices_[device]->allocate(std::max<std::size_t>(storage.size(), 1));
      break;
    } catch (const OutOfDeviceMemory&) {
      if (!evict_one(device, keep)) throw;
    }
  }
  // Only a replica with memory enters the map: every entry counts as used.
  BufferStorage::Replica& replica = replicas[devices_[device]];
  replica.memory = std::move(allocation);
  replica.last_use = clock_;
  memory.used += storage.size();
  memory.resident.insert(&storage);
  return replica;
}

void Coherence::reserve(const std::vector<Access>& accesses, std::size_t device,
                        const std::function<std::string()>& task_label) {
  ++clock_;
  reserved_for_ = &accesses;
  const Residency& memory = residency_[device];
  if (memory.limit == 0) return;
  std::vector<BufferStorage*> buffers;
  for (const Access& access : accesses) buffers.push_back(access.slice.storage.get());
  std::sort(buffers.begin(), buffers.end());
  buffers.erase(std::unique(buffers.begin(), buffers.end()), buffers.end());
  std::size_t needed = 0;
  for (BufferStorage* storage : buffers) needed += storage->size();
  if (needed > memory.limit) {
    throw OutOfDeviceMemory(task_label() + " needs " + describe_bytes(needed) + " on device " +
                            std::to_string(device) + " (" + devices_[device]->info().name +
                            ") for its " + std::to_string(buffers.size()) +
                            " buffers, but the executor may use " + describe_bytes(memory.limit) +
                            " there (ALLOY_DEVICE_MEMORY_LIMIT or "
                            "ExecutorOptions::device_memory_limit); split the work into "
                            "smaller buffers or raise the limit");
  }
}

bool Coherence::evict_one(std::size_t device, const std::vector<Access>& keep) {
  BufferStorage* oldest = nullptr;
  for (BufferStorage* storage : residency_[device].resident) {
    const bool needed = std::any_of(keep.begin(), keep.end(), [&](const Access& access) {
      return access.slice.storage.get() == storage;
    });
    if (needed) continue;
    const auto& replica = storage->replicas().at(devices_[device]);
    if (!oldest || replica.last_use < oldest->replicas().at(devices_[device]).last_use) {
      oldest = storage;
    }
  }
  if (!oldest) return false;
  evict(*oldest, device);
  return true;
}

void Coherence::evict(BufferStorage& storage, std::size_t device) {
  BufferStorage::Replica& replica = storage.replicas().at(devices_[device]);
  // Bytes only this replica holds go home first; the copies wait for every
  // command that writes them.
  Events producers;
  for (const auto& fill : replica.fills) producers.push_back(fill.event);
  for (const auto& [queue, event] : replica.uses) producers.push_back(event);
  Events copies;
  for (const ByteRange& valid : replica.valid.ranges()) {
    for (const ByteRange& dirty : storage.host_valid().missing(valid)) {
      copies.push_back(copy_to_host(storage, device, dirty, producers));
    }
  }
  for (const auto& event : producers) event->wait();
  for (const auto& event : copies) event->wait();
  storage.replicas().erase(devices_[device]);
  residency_[device].used -= storage.size();
  residency_[device].resident.erase(&storage);
}

std::shared_ptr<Event> Coherence::copy_to_host(BufferStorage& storage, std::size_t source,
                                               ByteRange piece, const Events& producers) {
  BufferStorage::Replica& from = storage.replicas().at(devices_[source]);
  Events waits = producers;
  add_pending(from.fills, piece, waits);
  Queue& queue = lanes_[source].copy_out();
  wait_on_queue(queue, waits);
  auto event = queue.read(*from.memory, piece.begin, storage.host_data() + piece.begin, piece.size());
  record_use(from, queue, event);
  storage.host_valid().add(piece);
  storage.host_fills().push_back({piece, event});
  return event;
}

DeviceBuffer& Coherence::prepare_on_device(const Access& access, std::size_t device,
                                           const Events& producers, Events& waits) {
  BufferStorage& storage = *access.slice.storage;
  BufferStorage::Replica& target = replica(storage, device);
  const ByteRange range = access.slice.range;
  if (reads(access.mode)) {
    std::vector<ByteRange> remaining = target.valid.missing(range);
    Queue& copy_in = lanes_[device].copy_in();
    // Nearest first: a device that shares memory with this one, then the
    // host, then any other device through the host.
    for (auto& [other, source] : storage.replicas()) {
      if (remaining.empty()) break;
      const std::size_t index = index_of(other);
      if (index == device || index == devices_.size() || !devices_[device]->shares_memory_with(*other)) {
        continue;
      }
      for (const ByteRange& piece : take_covered(remaining, source.valid)) {
        Events before = producers;
        add_pending(source.fills, piece, before);
        wait_on_queue(copy_in, before);
        auto event = copy_in.copy(*source.memory, piece.begin, *target.memory, piece.begin, piece.size());
        record_use(source, copy_in, event);
        add_fill(target, piece, copy_in, event);
      }
    }
    for (const ByteRange& piece : take_covered(remaining, storage.host_valid())) {
      Events before = producers;
      add_pending(storage.host_fills(), piece, before);
      wait_on_queue(copy_in, before);
      auto event = copy_in.write(*target.memory, piece.begin, storage.host_data() + piece.begin,
                                 piece.size());
      add_fill(target, piece, copy_in, event);
      transfers_.push_back({device, piece.size(), event});
    }
    for (auto& [other, source] : storage.replicas()) {
      if (remaining.empty()) break;
      const std::size_t index = index_of(other);
      if (index == device || index == devices_.size()) continue;
      for (const ByteRange& piece : take_covered(remaining, source.valid)) {
        auto staged = copy_to_host(storage, index, piece, producers);
        copy_in.wait_for(*staged);
        auto event = copy_in.write(*target.memory, piece.begin, storage.host_data() + piece.begin,
                                   piece.size());
        add_fill(target, piece, copy_in, event);
      }
    }
    if (!remaining.empty()) {
      throw Error("no valid copy of bytes [" + std::to_string(remaining.front().begin) + ", " +
                  std::to_string(remaining.front().end) +
                  ") of a buffer is reachable; was it used by another executor?");
    }
  }
  add_pending(target.fills, range, waits);
  return *target.memory;
}

void Coherence::add_fill(BufferStorage::Replica& target, ByteRange piece, Queue& queue,
                         std::shared_ptr<Event> event) {
  record_use(target, queue, event);
  target.valid.add(piece);
  target.fills.push_back({piece, std::move(event)});
}

std::size_t Coherence::missing_bytes(const Access& access, std::size_t device) const {
  if (!reads(access.mode)) return 0;
  const auto& replicas = access.slice.storage->replicas();
  const auto found = replicas.find(devices_[device]);
  if (found == replicas.end()) return access.slice.range.size();
  std::size_t bytes = 0;
  for (const ByteRange& piece : found->second.valid.missing(access.slice.range)) bytes += piece.size();
  return bytes;
}

void Coherence::used_on_device(const Access& access, std::size_t device, Queue& queue,
                               const std::shared_ptr<Event>& command) {
  BufferStorage& storage = *access.slice.storage;
  record_use(storage.replicas().at(devices_[device]), queue, command);
  if (!writes(access.mode)) return;
  const ByteRange range = access.slice.range;
  for (auto& [other, replica] : storage.replicas()) {
    trim_pending(replica.fills, range);
    if (other == devices_[device]) {
      replica.valid.add(range);
    } else {
      replica.valid.remove(range);
    }
  }
  trim_pending(storage.host_fills(), range);
  storage.host_valid().remove(range);
}

void Coherence::prepare_on_host(const Access& access, const Events& producers, Events& waits) {
  BufferStorage& storage = *access.slice.storage;
  const ByteRange range = access.slice.range;
  if (reads(access.mode)) {
    std::vector<ByteRange> remaining = storage.host_valid().missing(range);
    for (auto& [other, source] : storage.replicas()) {
      if (remaining.empty()) break;
      const std::size_t index = index_of(other);
      if (index == devices_.size()) continue;
      for (const ByteRange& piece : take_covered(remaining, source.valid)) {
        copy_to_host(storage, index, piece, producers);
      }
    }
    if (!remaining.empty()) {
      throw Error("no valid copy of bytes [" + std::to_string(remaining.front().begin) + ", " +
                  std::to_string(remaining.front().end) +
                  ") of a buffer is reachable; was it used by another executor?");
    }
  }
  add_pending(storage.host_fills(), range, waits);
}

void Coherence::written_on_host(const Access& access) {
  BufferStorage& storage = *access.slice.storage;
  const ByteRange range = access.slice.range;
  for (auto& [other, replica] : storage.replicas()) {
    trim_pending(replica.fills, range);
    replica.valid.remove(range);
  }
  trim_pending(storage.host_fills(), range);
  storage.host_valid().add(range);
}

void Coherence::bring_home(BufferStorage& storage) {
  Events waits;
  prepare_on_host(read(BufferSlice{std::shared_ptr<BufferStorage>(&storage, [](BufferStorage*) {}),
                                   {0, storage.size()}}),
                  {}, waits);
  for (const auto& event : waits) event->wait();
  storage.host_fills().clear();
  forget(storage);
}

void Coherence::forget(BufferStorage& storage) {
  for (std::size_t d = 0; d < devices_.size(); ++d) {
    const auto found = storage.replicas().find(devices_[d]);
    if (found == storage.replicas().end()) continue;
    for (const auto& fill : found->second.fills) fill.event->wait();
    for (const auto& [queue, event] : found->second.uses) event->wait();
    storage.replicas().erase(found);
    residency_[d].used -= storage.size();
    residency_[d].resident.erase(&storage);
  }
}

}  // namespace alloy::detail
