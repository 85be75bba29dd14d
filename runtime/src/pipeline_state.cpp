// A Pipeline's rings of device slots and the graph that streams chunks through them.
#include "pipeline_state.hpp"

#include <algorithm>

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

}  // namespace

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
  for (Ring& ring : rings) {
    ring.slots.resize(depth);
    for (Ring::Slot& slot : ring.slots) {
      for (const HostArray& array : inputs) {
        slot.inputs.push_back(std::make_shared<BufferStorage>(chunk * array.element_bytes));
      }
      for (const HostArray& array : outputs) {
        slot.outputs.push_back(std::make_shared<BufferStorage>(chunk * array.element_bytes));
      }
      for (const ReductionArray& reduction : reductions) {
        slot.reductions.push_back(std::make_shared<BufferStorage>(reduction.slot_bytes()));
      }
    }
  }
  ring_chunk = chunk;
  ring_depth = depth;
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
    for (std::size_t a = 0; a < inputs.size(); ++a) {
      graph.copy({inputs[a].storage, elements_of(spans[i], inputs[a].element_bytes)},
                 {slot.inputs[a], {0, c.length * inputs[a].element_bytes}}, c.options("copy-in"));
    }
    build(graph, c);
    for (std::size_t a = 0; a < outputs.size(); ++a) {
      graph.copy({slot.outputs[a], {0, c.length * outputs[a].element_bytes}},
                 {outputs[a].storage, elements_of(spans[i], outputs[a].element_bytes)}, c.options("copy-out"));
    }
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
