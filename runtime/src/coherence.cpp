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

void drop_overlapping(std::vector<PendingFill>& fills, ByteRange range) {
  std::erase_if(fills, [&](const PendingFill& fill) { return fill.range.overlaps(range); });
}

void wait_on_queue(Queue& queue, const Events& events) {
  for (const auto& event : events) {
    if (!event->is_complete()) queue.wait_for(*event);
  }
}

}  // namespace

DeviceLanes::DeviceLanes(Device& device, unsigned compute_lanes) {
  for (unsigned i = 0; i < compute_lanes; ++i) compute_.push_back(device.create_queue());
  copy_in_ = device.create_queue();
  copy_out_ = device.create_queue();
}

Queue& DeviceLanes::next_compute() { return *compute_[next_compute_++ % compute_.size()]; }

void DeviceLanes::track(const std::shared_ptr<Event>& event) {
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
  BufferStorage::Replica& replica = storage.replicas()[devices_[device]];
  if (!replica.memory) replica.memory = devices_[device]->allocate(storage.size());
  return replica;
}

std::shared_ptr<Event> Coherence::copy_to_host(BufferStorage& storage, std::size_t source,
                                               ByteRange piece, const Events& producers) {
  BufferStorage::Replica& from = storage.replicas()[devices_[source]];
  Events waits = producers;
  add_pending(from.fills, piece, waits);
  Queue& queue = lanes_[source].copy_out();
  wait_on_queue(queue, waits);
  auto event = queue.read(*from.memory, piece.begin, storage.host_data() + piece.begin, piece.size());
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
        target.valid.add(piece);
        target.fills.push_back({piece, event});
      }
    }
    for (const ByteRange& piece : take_covered(remaining, storage.host_valid())) {
      Events before = producers;
      add_pending(storage.host_fills(), piece, before);
      wait_on_queue(copy_in, before);
      auto event = copy_in.write(*target.memory, piece.begin, storage.host_data() + piece.begin,
                                 piece.size());
      target.valid.add(piece);
      target.fills.push_back({piece, event});
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
        target.valid.add(piece);
        target.fills.push_back({piece, event});
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

void Coherence::written_on_device(const Access& access, std::size_t device) {
  BufferStorage& storage = *access.slice.storage;
  const ByteRange range = access.slice.range;
  for (auto& [other, replica] : storage.replicas()) {
    drop_overlapping(replica.fills, range);
    if (other == devices_[device]) {
      replica.valid.add(range);
    } else {
      replica.valid.remove(range);
    }
  }
  drop_overlapping(storage.host_fills(), range);
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
    drop_overlapping(replica.fills, range);
    replica.valid.remove(range);
  }
  drop_overlapping(storage.host_fills(), range);
  storage.host_valid().add(range);
}

void Coherence::bring_home(BufferStorage& storage) {
  Events waits;
  prepare_on_host(read(BufferSlice{std::shared_ptr<BufferStorage>(&storage, [](BufferStorage*) {}),
                                   {0, storage.size()}}),
                  {}, waits);
  for (const auto& event : waits) event->wait();
  storage.host_fills().clear();
  for (Device* device : devices_) storage.replicas().erase(device);
}

}  // namespace alloy::detail
