// A Pipeline's rings of device slots and the graph that streams chunks through them.
#include "pipeline_state.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

std::string bytes_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (std::size_t{1} << 10)) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

ByteRange elements_of(const ChunkSpan& span, std::size_t element_bytes) {
  return {span.offset * element_bytes, (span.offset + span.length) * element_bytes};
}

/// Pinned memory for `bytes` on `device`'s backend, aligned for O_DIRECT.
Staging make_staging(Device& device, std::size_t bytes) {
  Staging staging;
  staging.pinned = device.allocate_host(bytes + 2 * direct_alignment);
  const auto address = reinterpret_cast<std::uintptr_t>(staging.pinned->data());
  auto* aligned = reinterpret_cast<std::byte*>((address + direct_alignment - 1) / direct_alignment * direct_alignment);
  // Room for a direct read of the last block beyond `bytes`.
  staging.view = std::make_shared<BufferStorage>(BorrowedMemory{aligned, bytes + direct_alignment, false});
  return staging;
}


}  // namespace

void BusyTime::add(Clock::time_point start, Clock::time_point end) {
  std::lock_guard lock(mutex_);
  intervals_.emplace_back(start, end);
}

std::chrono::nanoseconds BusyTime::total() const {
  std::lock_guard lock(mutex_);
  auto sorted = intervals_;
  std::sort(sorted.begin(), sorted.end());
  Clock::duration busy{0};
  Clock::time_point covered_until = Clock::time_point::min();
  for (const auto& [start, end] : sorted) {
    const Clock::time_point from = std::max(start, covered_until);
    if (end > from) busy += end - from;
    covered_until = std::max(covered_until, end);
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(busy);
}

void BusyTime::clear() {
  std::lock_guard lock(mutex_);
  intervals_.clear();
}

std::size_t PipelineState::bytes_per_element() const {
  std::size_t bytes = 0;
  for (const HostArray& array : inputs) bytes += array.element_bytes;
  for (const HostArray& array : outputs) bytes += array.element_bytes;
  return bytes;
}

std::size_t PipelineState::reduction_bytes() const {
  std::size_t bytes = 0;
  for (const ReductionArray& reduction : reductions) bytes += reduction.slot_bytes();
  return bytes;
}

std::size_t PipelineState::smallest_device_memory() const {
  std::size_t smallest = SIZE_MAX;
  for (std::size_t device : options.devices) smallest = std::min(smallest, executor.device_memory(device));
  return smallest;
}

bool PipelineState::has_files() const {
  for (const HostArray& array : inputs) if (array.is_file()) return true;
  for (const HostArray& array : outputs) if (array.is_file()) return true;
  return false;
}

bool PipelineState::staged(const HostArray& array) const {
  if (array.is_file()) return !array.direct;
  return memory_route == HostMemoryRoute::staged;
}

void PipelineState::check_fits(std::size_t chunk, unsigned depth) const {
  const std::size_t per_slot = chunk * bytes_per_element() + reduction_bytes();
  const std::size_t needed = per_slot * depth;
  for (std::size_t device : options.devices) {
    const std::size_t memory = executor.device_memory(device);
    if (needed > memory) {
      throw InvalidArgument("pipeline of chunks of " + std::to_string(chunk) + " elements: " +
                            std::to_string(depth) + " slots of " + bytes_text(per_slot) + " need " +
                            bytes_text(needed) + " on " + executor.devices()[device]->label() +
                            ", which has " + bytes_text(memory) +
                            " for the executor; use smaller chunks or a smaller depth");
    }
  }
}

void PipelineState::make_rings(std::size_t chunk, unsigned depth) {
  if (ring_chunk == chunk && ring_depth == depth && rings.size() == options.devices.size()) return;
  check_fits(chunk, depth);
  rings.assign(options.devices.size(), {});
  for (std::size_t r = 0; r < rings.size(); ++r) {
    Device& device = *executor.devices()[options.devices[r]];
    rings[r].slots.resize(depth);
    for (Ring::Slot& slot : rings[r].slots) {
      for (const HostArray& array : inputs) {
        slot.inputs.push_back(std::make_shared<BufferStorage>(chunk * array.element_bytes));
        slot.staged_inputs.push_back(staged(array) ? make_staging(device, chunk * array.element_bytes) : Staging{});
      }
      for (const HostArray& array : outputs) {
        slot.outputs.push_back(std::make_shared<BufferStorage>(chunk * array.element_bytes));
        slot.staged_outputs.push_back(staged(array) ? make_staging(device, chunk * array.element_bytes) : Staging{});
      }
      for (const ReductionArray& reduction : reductions) {
        slot.reductions.push_back(std::make_shared<BufferStorage>(reduction.slot_bytes()));
      }
    }
  }
  ring_chunk = chunk;
  ring_depth = depth;
}

void PipelineState::add_copy_in(Graph& graph, const Chunk& c, std::size_t a, const ChunkSpan& span) const {
  const HostArray& array = inputs[a];
  const ByteRange bytes = elements_of(span, array.element_bytes);
  const ByteRange in_slot{0, bytes.size()};
  const Ring::Slot& slot = rings[c.ring].slots[c.slot];
  if (array.file && array.direct) {
    // On the chunk's device, from storage into the slot: no staging, no copy.
    graph.read_file(array.file, bytes.begin, {slot.inputs[a], in_slot}, c.options("read " + array.description));
    return;
  }
  BufferSlice from{array.storage, bytes};
  if (staged(array)) {
    // The chunk into the pinned staging slot, on a host thread while the
    // device works on other chunks; then copied up from there.
    std::byte* into = slot.staged_inputs[a].view->host_data();
    from = {slot.staged_inputs[a].view, in_slot};
    if (array.file) {
      // The file's reads are timed as they run (Pipeline::add_input_file).
      graph.host({write(from)}, [file = array.file, into, bytes] { file->read(bytes.begin, into, bytes.size()); },
                 c.options("read " + array.description));
    } else {
      const std::byte* source = array.storage->host_data() + bytes.begin;
      graph.host({read(BufferSlice{array.storage, bytes}), write(from)},
                 timed([into, source, size = bytes.size()] { std::memcpy(into, source, size); }),
                 c.options("stage " + array.description));
    }
  }
  graph.copy(std::move(from), {slot.inputs[a], in_slot}, c.options("copy-in"));
}

void PipelineState::add_copy_out(Graph& graph, const Chunk& c, std::size_t a, const ChunkSpan& span) const {
  const HostArray& array = outputs[a];
  const ByteRange bytes = elements_of(span, array.element_bytes);
  const ByteRange in_slot{0, bytes.size()};
  const Ring::Slot& slot = rings[c.ring].slots[c.slot];
  if (!staged(array)) {
    graph.copy({slot.outputs[a], in_slot}, {array.storage, bytes}, c.options("copy-out"));
    return;
  }
  // Down into the pinned staging slot, then on a host thread to its place.
  const BufferSlice staging{slot.staged_outputs[a].view, in_slot};
  const std::byte* from = staging.storage->host_data();
  graph.copy({slot.outputs[a], in_slot}, staging, c.options("copy-out"));
  if (array.writer) {
    graph.host({read(staging)}, timed([writer = array.writer, from, bytes] { writer->write(from, bytes.begin, bytes.size()); }),
               c.options("write " + array.description));
  } else {
    std::byte* into = array.storage->host_data() + bytes.begin;
    graph.host({read(staging), write(BufferSlice{array.storage, bytes})},
               timed([into, from, size = bytes.size()] { std::memcpy(into, from, size); }),
               c.options("unstage " + array.description));
  }
}

std::function<void()> PipelineState::timed(std::function<void()> work) const {
  return [busy = host_busy, work = std::move(work)] {
    const auto started = BusyTime::Clock::now();
    work();
    busy->add(started, BusyTime::Clock::now());
  };
}

StreamedChunks PipelineState::stream(const std::vector<ChunkSpan>& spans, std::size_t first_chunk,
                                     std::size_t chunk, unsigned depth) {
  make_rings(chunk, depth);
  // This submission's partials land here, then join the earlier ones.
  std::vector<std::vector<std::byte>> partials(reductions.size());
  std::vector<std::shared_ptr<BufferStorage>> partial_storage;
  for (std::size_t a = 0; a < reductions.size(); ++a) {
    partials[a].assign(spans.size() * reductions[a].slot_bytes(), std::byte{0});
    partial_storage.push_back(
        std::make_shared<BufferStorage>(BorrowedMemory{partials[a].data(), partials[a].size(), false}));
  }

  Graph graph;
  std::vector<std::size_t> chunk_of_task;
  const std::size_t devices = options.devices.size();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    Chunk c;
    c.index = first_chunk + i;
    c.offset = spans[i].offset;
    c.length = spans[i].length;
    c.ring = i % devices;
    c.slot = (i / devices) % depth;
    c.device = options.devices[c.ring];
    c.state = this;
    const Ring::Slot& slot = rings[c.ring].slots[c.slot];
    for (std::size_t a = 0; a < inputs.size(); ++a) add_copy_in(graph, c, a, spans[i]);
    build(graph, c);
    for (std::size_t a = 0; a < outputs.size(); ++a) add_copy_out(graph, c, a, spans[i]);
    for (std::size_t a = 0; a < reductions.size(); ++a) {
      const std::size_t bytes = reductions[a].slot_bytes();
      graph.copy({slot.reductions[a], {0, bytes}}, {partial_storage[a], {i * bytes, (i + 1) * bytes}},
                 c.options("partials copy-out"));
    }
    chunk_of_task.resize(graph.size(), i);
  }
  RunOptions run_options;
  run_options.timed = true;
  const Run run = executor.run(graph, run_options);
  run.wait();
  for (std::size_t a = 0; a < reductions.size(); ++a) {
    reductions[a].partials.insert(reductions[a].partials.end(), partials[a].begin(), partials[a].end());
  }
  StreamedChunks streamed;
  streamed.commands = run.command_times();
  const std::uint64_t first_task = graph.size() == 0 ? 0 : run.task({0}).index;
  for (const CommandTime& command : streamed.commands) {
    streamed.chunk_of_command.push_back(chunk_of_task[command.task.index - first_task]);
  }
  return streamed;
}

}  // namespace alloy::detail

namespace alloy {

BufferSlice Chunk::in(PipelineInput input) const {
  const auto& arrays = state->rings.at(ring).slots.at(slot).inputs;
  if (input.index >= arrays.size()) {
    throw InvalidArgument("Chunk::in: the pipeline has no input " + std::to_string(input.index));
  }
  return {arrays[input.index], {0, length * state->inputs[input.index].element_bytes}};
}

BufferSlice Chunk::out(PipelineOutput output) const {
  const auto& arrays = state->rings.at(ring).slots.at(slot).outputs;
  if (output.index >= arrays.size()) {
    throw InvalidArgument("Chunk::out: the pipeline has no output " + std::to_string(output.index));
  }
  return {arrays[output.index], {0, length * state->outputs[output.index].element_bytes}};
}

BufferSlice Chunk::partial(PipelineReduction reduction) const {
  const auto& arrays = state->rings.at(ring).slots.at(slot).reductions;
  if (reduction.index >= arrays.size()) {
    throw InvalidArgument("Chunk::partial: the pipeline has no reduction " + std::to_string(reduction.index));
  }
  return {arrays[reduction.index], {0, state->reductions[reduction.index].slot_bytes()}};
}

TaskOptions Chunk::options(const std::string& name) const {
  TaskOptions options;
  options.name = "chunk " + std::to_string(index) + ": " + name;
  options.device = device;
  return options;
}

}  // namespace alloy
