// Replica validity and the transfers between host and devices that restore it.
#include "coherence.hpp"

#include <algorithm>
#include <optional>

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

using Events = Coherence::Events;

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
void record_use(Replica& replica, Queue& queue, const std::shared_ptr<Event>& event) {
  for (auto& [used_on, last] : replica.uses) {
    if (used_on == &queue) {
      last = event;
      return;
    }
  }
  replica.uses.emplace_back(&queue, event);
}

/// Records a transfer into `target` over `piece`.
void add_fill(Replica& target, ByteRange piece, Queue& queue, std::shared_ptr<Event> event) {
  record_use(target, queue, event);
  target.valid.add(piece);
  target.fills.push_back({piece, std::move(event)});
}

}  // namespace

std::size_t Coherence::index_of(const Device* device) const {
  const auto found = std::find(devices_.begin(), devices_.end(), device);
  return found == devices_.end() ? devices_.size() : static_cast<std::size_t>(found - devices_.begin());
}

std::vector<Coherence::Source> Coherence::sources_for(const BufferStorage& storage,
                                                      std::optional<std::size_t> device) const {
  std::vector<Source> peers;
  std::vector<Source> staged;
  for (const auto& [other, replica] : state_of(storage).replicas_) {
    const std::size_t index = index_of(other);
    // Replicas of devices not this executor's are another executor's.
    if (index == devices_.size() || index == device) continue;
    if (!device) {
      staged.push_back({Source::Route::peer, index});  // device to host: one copy
    } else if (devices_[*device]->shares_memory_with(*other)) {
      peers.push_back({Source::Route::peer, index});
    } else {
      staged.push_back({Source::Route::through_host, index});
    }
  }
  std::vector<Source> sources = std::move(peers);
  if (device) sources.push_back({Source::Route::host, 0});
  sources.insert(sources.end(), staged.begin(), staged.end());
  return sources;
}

void Coherence::restore(BufferStorage& storage, std::vector<ByteRange>& remaining,
                        const std::vector<Source>& sources,
                        const std::function<void(const Source&, ByteRange)>& copy) {
  BufferState& state = state_of(storage);
  for (const Source& source : sources) {
    if (remaining.empty()) break;
    const IntervalSet& valid = source.route == Source::Route::host
                                   ? state.host_valid_
                                   : state.replicas_.at(devices_[source.device]).valid;
    for (const ByteRange& piece : take_covered(remaining, valid)) copy(source, piece);
  }
  if (!remaining.empty()) {
    throw Error("no valid copy of bytes [" + std::to_string(remaining.front().begin) + ", " +
                std::to_string(remaining.front().end) +
                ") of a buffer is reachable; was it used by another executor?");
  }
}

std::shared_ptr<Event> Coherence::copy_to_host(BufferStorage& storage, std::size_t source,
                                               ByteRange piece, const Events& producers) {
  BufferState& state = state_of(storage);
  Replica& from = state.replicas_.at(devices_[source]);
  Events waits = producers;
  add_pending(from.fills, piece, waits);
  // Copies into these host bytes still on their way (an eviction's write-
  // back, which no task waits for) must land first.
  add_pending(state.host_fills_, piece, waits);
  Queue& queue = lanes_[source].copy_out();
  wait_on_queue(queue, waits);
  auto event = queue.read(*from.memory, piece.begin, storage.host_data() + piece.begin, piece.size());
  record_use(from, queue, event);
  state.host_valid_.add(piece);
  state.host_fills_.push_back({piece, event});
  return event;
}

DeviceBuffer& Coherence::prepare_on_device(const Access& access, std::size_t device,
                                           const Events& producers, Events& waits) {
  BufferStorage& storage = *access.slice.storage;
  BufferState& state = state_of(storage);
  Replica& target = state.replicas_.at(devices_[device]);
  const ByteRange range = access.slice.range;
  if (reads(access.mode)) {
    std::vector<ByteRange> remaining = target.valid.missing(range);
    if (!remaining.empty()) {
      Queue& copy_in = lanes_[device].copy_in();
      restore(storage, remaining, sources_for(storage, device), [&](const Source& source, ByteRange piece) {
        std::shared_ptr<Event> event;
        if (source.route == Source::Route::peer) {
          Replica& from = state.replicas_.at(devices_[source.device]);
          Events before = producers;
          add_pending(from.fills, piece, before);
          wait_on_queue(copy_in, before);
          event = copy_in.copy(*from.memory, piece.begin, *target.memory, piece.begin, piece.size());
          record_use(from, copy_in, event);
        } else {
          Events before = producers;
          if (source.route == Source::Route::through_host) {
            before.push_back(copy_to_host(storage, source.device, piece, producers));
          } else {
            add_pending(state.host_fills_, piece, before);
          }
          wait_on_queue(copy_in, before);
          event = copy_in.write(*target.memory, piece.begin, storage.host_data() + piece.begin,
                                piece.size());
          if (recording_ && source.route == Source::Route::host) {
            transfers_.push_back({device, piece.size(), event});
          }
        }
        add_fill(target, piece, copy_in, event);
      });
    }
  }
  add_pending(target.fills, range, waits);
  return *target.memory;
}

std::size_t Coherence::missing_bytes(const Access& access, std::size_t device) const {
  if (!reads(access.mode)) return 0;
  const auto& replicas = state_of(*access.slice.storage).replicas_;
  const auto found = replicas.find(devices_[device]);
  if (found == replicas.end()) return access.slice.range.size();
  std::size_t bytes = 0;
  for (const ByteRange& piece : found->second.valid.missing(access.slice.range)) bytes += piece.size();
  return bytes;
}

void Coherence::used_on_device(const Access& access, std::size_t device, Queue& queue,
                               const std::shared_ptr<Event>& command) {
  record_use(state_of(*access.slice.storage).replicas_.at(devices_[device]), queue, command);
  if (writes(access.mode)) written_on_device(access, device);
}

void Coherence::written_on_device(const Access& access, std::size_t device) {
  BufferState& state = state_of(*access.slice.storage);
  ++state.version_;
  const ByteRange range = access.slice.range;
  for (auto& [other, replica] : state.replicas_) {
    trim_pending(replica.fills, range);
    if (other == devices_[device]) {
      replica.valid.add(range);
    } else {
      replica.valid.remove(range);
    }
  }
  // Host fills stay: a later copy home of these bytes must not overtake one
  // still on its way (copy_to_host waits for them).
  state.host_valid_.remove(range);
}

void Coherence::landed_on_host(const Access& access, std::shared_ptr<Event> transfer) {
  auto& fills = state_of(*access.slice.storage).host_fills_;
  // Streaming lands one chunk after another here: keep only those in flight.
  std::erase_if(fills, [](const PendingFill& fill) { return fill.event->is_complete(); });
  fills.push_back({access.slice.range, std::move(transfer)});
}

void Coherence::prepare_on_host(const Access& access, const Events& producers, Events& waits) {
  BufferStorage& storage = *access.slice.storage;
  BufferState& state = state_of(storage);
  const ByteRange range = access.slice.range;
  if (reads(access.mode)) {
    std::vector<ByteRange> remaining = state.host_valid_.missing(range);
    if (!remaining.empty()) {
      restore(storage, remaining, sources_for(storage, std::nullopt),
              [&](const Source& source, ByteRange piece) {
                copy_to_host(storage, source.device, piece, producers);
              });
    }
  }
  add_pending(state.host_fills_, range, waits);
}

void Coherence::written_on_host(const Access& access) {
  BufferState& state = state_of(*access.slice.storage);
  ++state.version_;
  const ByteRange range = access.slice.range;
  for (auto& [other, replica] : state.replicas_) {
    trim_pending(replica.fills, range);
    replica.valid.remove(range);
  }
  trim_pending(state.host_fills_, range);
  state.host_valid_.add(range);
}

Events Coherence::write_back(BufferStorage& storage, std::size_t device) {
  BufferState& state = state_of(storage);
  if (state.scratch_) return {};
  const Replica& replica = state.replicas_.at(devices_[device]);
  // The copies wait for every command that writes these bytes.
  Events producers;
  for (const auto& fill : replica.fills) producers.push_back(fill.event);
  for (const auto& [queue, event] : replica.uses) producers.push_back(event);
  Events copies;
  const std::vector<ByteRange> valid = replica.valid.ranges();
  for (const ByteRange& held : valid) {
    for (const ByteRange& dirty : state.host_valid_.missing(held)) {
      copies.push_back(copy_to_host(storage, device, dirty, producers));
    }
  }
  return copies;
}

void Coherence::bring_home(BufferStorage& storage) {
  Events waits;
  const BufferSlice whole{std::shared_ptr<BufferStorage>(&storage, [](BufferStorage*) {}),
                          {0, storage.size()}};
  prepare_on_host(read(whole), {}, waits);
  for (const auto& event : waits) event->wait();
  state_of(storage).host_fills_.clear();
}

}  // namespace alloy::detail
