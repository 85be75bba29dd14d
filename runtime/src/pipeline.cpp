// Streaming pipelines: the per-device rings of slots and the graph of chunks.
#include "alloy/pipeline.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "alloy/error.hpp"
#include "pipeline_report.hpp"

namespace alloy::detail {

/// A caller's array, lent to the executor as host-resident memory.
struct HostArray {
  std::shared_ptr<BufferStorage> storage;
  std::size_t element_bytes = 0;
};

struct ReductionArray {
  std::size_t values_per_chunk = 0;
  std::size_t value_bytes = 0;
  std::vector<std::byte> partials;  ///< per chunk, in chunk order, after a run
  std::shared_ptr<BufferStorage> storage;  ///< lends `partials` to the executor

  std::size_t slot_bytes() const { return values_per_chunk * value_bytes; }
};

/// One device's slots: per slot, one device buffer per array.
struct Ring {
  struct Slot {
    std::vector<std::shared_ptr<BufferStorage>> inputs, outputs, reductions;
  };
  std::vector<Slot> slots;
};

namespace {


std::string bytes_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (std::size_t{1} << 10)) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

bool report_requested() {
  const char* value = std::getenv("ALLOY_REPORT");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace

struct PipelineState {
  Executor& executor;
  std::size_t elements;
  PipelineOptions options;
  std::vector<HostArray> inputs;
  std::vector<HostArray> outputs;
  std::vector<ReductionArray> reductions;
  std::function<void(Graph&, const Chunk&)> build;
  std::vector<Ring> rings;  ///< per entry of options.devices
  std::size_t ring_chunk = 0;  ///< the chunk size `rings` were made for

  /// Slot bytes per element over all arrays, and per slot for reductions.
  std::size_t bytes_per_element() const {
    std::size_t bytes = 0;
    for (const HostArray& array : inputs) bytes += array.element_bytes;
    for (const HostArray& array : outputs) bytes += array.element_bytes;
    return bytes;
  }
  std::size_t reduction_bytes() const {
    std::size_t bytes = 0;
    for (const ReductionArray& reduction : reductions) bytes += reduction.slot_bytes();
    return bytes;
  }
  std::size_t smallest_device_memory() const {
    std::size_t smallest = SIZE_MAX;
    for (std::size_t device : options.devices) smallest = std::min(smallest, executor.device_memory(device));
    return smallest;
  }
  void check_fits(std::size_t chunk) const;
  void make_rings(std::size_t chunk);
  Graph chunk_graph(std::size_t chunk, std::size_t chunks);
};

void detail::PipelineState::check_fits(std::size_t chunk) const {
  const std::size_t per_slot = chunk * bytes_per_element() + reduction_bytes();
  const std::size_t needed = per_slot * options.depth;
  for (std::size_t device : options.devices) {
    const std::size_t memory = executor.device_memory(device);
    if (needed > memory) {
      throw InvalidArgument("pipeline of chunks of " + std::to_string(chunk) + " elements: " +
                            std::to_string(options.depth) + " slots of " + bytes_text(per_slot) +
                            " need " + bytes_text(needed) + " on " +
                            executor.devices()[device]->label() + ", which has " +
                            bytes_text(memory) + " for the executor; use smaller chunks or a "
                            "smaller depth");
    }
  }
}

void detail::PipelineState::make_rings(std::size_t chunk) {
  if (ring_chunk == chunk && rings.size() == options.devices.size()) return;
  check_fits(chunk);
  rings.assign(options.devices.size(), {});
  for (Ring& ring : rings) {
    ring.slots.resize(options.depth);
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
}

Graph detail::PipelineState::chunk_graph(std::size_t chunk, std::size_t chunks) {
  Graph graph;
  const std::size_t devices = options.devices.size();
  for (std::size_t i = 0; i < chunks; ++i) {
    Chunk c;
    c.index = i;
    c.offset = i * chunk;
    c.length = std::min(chunk, elements - c.offset);
    c.ring = i % devices;
    c.slot = (i / devices) % options.depth;
    c.device = options.devices[c.ring];
    c.state = this;
    const Ring::Slot& slot = rings[c.ring].slots[c.slot];
    for (std::size_t a = 0; a < inputs.size(); ++a) {
      const std::size_t bytes = inputs[a].element_bytes;
      graph.copy({inputs[a].storage, {c.offset * bytes, (c.offset + c.length) * bytes}},
                 {slot.inputs[a], {0, c.length * bytes}}, c.options("copy-in"));
    }
    build(graph, c);
    for (std::size_t a = 0; a < outputs.size(); ++a) {
      const std::size_t bytes = outputs[a].element_bytes;
      graph.copy({slot.outputs[a], {0, c.length * bytes}},
                 {outputs[a].storage, {c.offset * bytes, (c.offset + c.length) * bytes}},
                 c.options("copy-out"));
    }
    for (std::size_t a = 0; a < reductions.size(); ++a) {
      const std::size_t bytes = reductions[a].slot_bytes();
      graph.copy({slot.reductions[a], {0, bytes}}, {reductions[a].storage, {i * bytes, (i + 1) * bytes}},
                 c.options("partials copy-out"));
    }
  }
  return graph;
}

}  // namespace alloy::detail

namespace alloy {
using detail::PipelineState;
using detail::ReductionArray;

BufferSlice Chunk::in(PipelineInput input) const {
  const auto& arrays = state->rings.at(ring).slots.at(slot).inputs;
  if (input.index >= arrays.size()) throw InvalidArgument("Chunk::in: the pipeline has no input " + std::to_string(input.index));
  return {arrays[input.index], {0, length * state->inputs[input.index].element_bytes}};
}

BufferSlice Chunk::out(PipelineOutput output) const {
  const auto& arrays = state->rings.at(ring).slots.at(slot).outputs;
  if (output.index >= arrays.size()) throw InvalidArgument("Chunk::out: the pipeline has no output " + std::to_string(output.index));
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

Pipeline::Pipeline(Executor& executor, std::size_t elements, PipelineOptions options)
    : state_(std::make_unique<detail::PipelineState>(detail::PipelineState{executor, elements, std::move(options), {}, {}, {}, {}, {}, 0})) {
  PipelineOptions& chosen = state_->options;
  if (chosen.depth < 1) throw InvalidArgument("pipeline depth 0: it needs at least one slot per device (2 double-buffers)");
  const std::size_t available = executor.devices().size();
  if (chosen.devices.empty()) {
    for (std::size_t d = 0; d < available; ++d) chosen.devices.push_back(d);
  }
  for (std::size_t device : chosen.devices) {
    if (device >= available) {
      throw InvalidArgument("pipeline device " + std::to_string(device) + ": the executor has " +
                            std::to_string(available) + " devices");
    }
  }
}

Pipeline::~Pipeline() = default;

PipelineInput Pipeline::add_input(const std::byte* data, std::size_t count, std::size_t element_bytes) {
  if (count != state_->elements) {
    throw InvalidArgument("pipeline input of " + std::to_string(count) + " elements; the pipeline has " +
                          std::to_string(state_->elements));
  }
  BorrowedMemory lent{const_cast<std::byte*>(data), count * element_bytes, true};
  state_->inputs.push_back({std::make_shared<BufferStorage>(lent), element_bytes});
  state_->ring_chunk = 0;
  return {state_->inputs.size() - 1};
}

PipelineOutput Pipeline::add_output(std::byte* data, std::size_t count, std::size_t element_bytes) {
  if (count != state_->elements) {
    throw InvalidArgument("pipeline output of " + std::to_string(count) + " elements; the pipeline has " +
                          std::to_string(state_->elements));
  }
  state_->outputs.push_back({std::make_shared<BufferStorage>(BorrowedMemory{data, count * element_bytes, false}),
                             element_bytes});
  state_->ring_chunk = 0;
  return {state_->outputs.size() - 1};
}

PipelineReduction Pipeline::add_reduction(std::size_t values_per_chunk, std::size_t value_bytes) {
  if (values_per_chunk == 0) throw InvalidArgument("pipeline reduction of 0 values per chunk");
  state_->reductions.push_back({values_per_chunk, value_bytes, {}, nullptr});
  state_->ring_chunk = 0;
  return {state_->reductions.size() - 1};
}

std::span<const std::byte> Pipeline::partials(PipelineReduction reduction, std::size_t value_bytes) const {
  if (reduction.index >= state_->reductions.size()) {
    throw InvalidArgument("Pipeline::reduce: the pipeline has no reduction " + std::to_string(reduction.index));
  }
  const ReductionArray& array = state_->reductions[reduction.index];
  if (array.value_bytes != value_bytes) {
    throw InvalidArgument("Pipeline::reduce with values of " + std::to_string(value_bytes) +
                          " bytes; the reduction was declared with " + std::to_string(array.value_bytes));
  }
  return array.partials;
}

std::size_t Pipeline::values_per_chunk(PipelineReduction reduction) const {
  return state_->reductions.at(reduction.index).values_per_chunk;
}

std::size_t Pipeline::chunk_elements() const {
  const detail::PipelineState& s = *state_;
  if (s.options.chunk_elements != 0) return s.options.chunk_elements;
  // At least four chunks per slot of every device, so that the ring turns
  // over and the first copy-in and last copy-out are short against the whole.
  const std::size_t per_element = std::max<std::size_t>(s.bytes_per_element(), 1);
  const std::size_t turns = 4 * s.options.depth * s.options.devices.size();
  std::size_t chunk = (s.elements + turns - 1) / std::max<std::size_t>(turns, 1);
  // Launches and transfers cost microseconds each: chunks of at least
  // 256 KiB keep that small; beyond 64 MiB a slot only costs memory.
  chunk = std::clamp(chunk, (std::size_t{256} << 10) / per_element, (std::size_t{64} << 20) / per_element);
  // Half the device's memory for the slots, at most.
  const std::size_t memory = s.smallest_device_memory() / 2;
  const std::size_t fixed = s.reduction_bytes() * s.options.depth;
  if (memory > fixed) chunk = std::min(chunk, (memory - fixed) / (s.options.depth * per_element));
  return std::max<std::size_t>(std::min(chunk, std::max<std::size_t>(s.elements, 1)), 1);
}

void Pipeline::kernel(ProgramSource source, std::string kernel_name, std::vector<PipelineArg> args,
                      std::optional<std::size_t> local_size) {
  auto shared = std::make_shared<const ProgramSource>(std::move(source));
  each_chunk([this, shared, kernel_name, args = std::move(args), local_size](Graph& graph, const Chunk& c) {
    std::size_t global = c.length;
    if (local_size && *local_size != 0) global = (global + *local_size - 1) / *local_size * *local_size;
    const LaunchRange range = local_size ? LaunchRange(Extent(global), Extent(*local_size))
                                         : LaunchRange(Extent(global));
    graph.kernel(*shared, kernel_name, range, task_args(args, c), c.options(kernel_name));
  });
}

void Pipeline::kernel(const TunableKernel& kernel, std::vector<PipelineArg> args) {
  kernel.validate();
  auto shared = std::make_shared<const TunableKernel>(kernel);
  each_chunk([this, shared, args = std::move(args)](Graph& graph, const Chunk& c) {
    graph.kernel(*shared, Extent(c.length), task_args(args, c), c.options(shared->name));
  });
}

std::vector<TaskArg> Pipeline::task_args(const std::vector<PipelineArg>& args, const Chunk& c) const {
  std::vector<TaskArg> converted;
  converted.reserve(args.size());
  for (const PipelineArg& arg : args) {
    if (const auto* input = std::get_if<PipelineInput>(&arg.value)) {
      converted.emplace_back(read(c.in(*input)));
    } else if (const auto* output = std::get_if<PipelineOutput>(&arg.value)) {
      converted.emplace_back(write(c.out(*output)));
    } else if (const auto* reduction = std::get_if<PipelineReduction>(&arg.value)) {
      converted.emplace_back(write(c.partial(*reduction)));
    } else if (const auto* value = std::get_if<ChunkValue>(&arg.value)) {
      converted.emplace_back(static_cast<std::uint64_t>(*value == ChunkValue::offset ? c.offset : c.length));
    } else {
      converted.emplace_back(std::get<KernelArg>(arg.value));
    }
  }
  return converted;
}

void Pipeline::each_chunk(std::function<void(Graph&, const Chunk&)> build) {
  if (!build) throw InvalidArgument("Pipeline::each_chunk with an empty function");
  state_->build = std::move(build);
}

PipelineReport Pipeline::run() {
  detail::PipelineState& s = *state_;
  if (!s.build) {
    throw InvalidArgument("Pipeline::run before kernel() or each_chunk() said what to do with each chunk");
  }
  const std::size_t chunk = chunk_elements();
  s.make_rings(chunk);
  const std::size_t chunks = (s.elements + chunk - 1) / chunk;
  for (ReductionArray& reduction : s.reductions) {
    reduction.partials.assign(chunks * reduction.slot_bytes(), std::byte{0});
    reduction.storage = std::make_shared<BufferStorage>(
        BorrowedMemory{reduction.partials.data(), reduction.partials.size(), false});
  }
  const Graph graph = s.chunk_graph(chunk, chunks);
  RunOptions options;
  options.timed = true;
  const Run run = s.executor.run(graph, options);
  run.wait();
  PipelineReport report = detail::summarize(run.command_times(), run.statistics().wall_time,
                                            s.executor.devices(), s.options.devices);
  report.elements = s.elements;
  report.chunk_elements = chunk;
  report.chunks = chunks;
  report.depth = s.options.depth;
  for (std::size_t ring = 0; ring < report.devices.size(); ++ring) {
    const std::size_t rings = report.devices.size();
    report.devices[ring].chunks = chunks / rings + (ring < chunks % rings ? 1 : 0);
  }
  if (detail::report_requested()) std::cerr << report.to_string();
  return report;
}

}  // namespace alloy
