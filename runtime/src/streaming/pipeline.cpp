// Pipeline's public calls, and how a run chooses its chunks: from the
// options, a tuned profile, or by measuring its first chunks.
#include "alloy/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "alloy/error.hpp"
#include "chunk_sizing.hpp"
#include "support/environment_flag.hpp"
#include "host_memory_route.hpp"
#include "input_file_access.hpp"
#include "pipeline_report.hpp"
#include "pipeline_state.hpp"
#include "staging_check.hpp"

namespace alloy {
namespace {

using detail::ChunkSpan;
using detail::PipelineState;
using detail::ReductionArray;

/// What keeps `path` from being streamed as a file, in the user's terms
/// ("does not exist", "is a directory"); empty when nothing does. Opening a
/// folder for reading succeeds on Linux, and would report its size instead.
std::string why_not_a_file(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) return "does not exist";
  if (error) return "cannot be examined: " + error.message();
  if (std::filesystem::is_directory(status)) return "is a directory";
  if (!std::filesystem::is_regular_file(status)) return "is not a regular file (a device, pipe or socket)";
  return "";
}

/// [first, elements) in chunks of `chunk`; the last may be shorter.
std::vector<ChunkSpan> split(std::size_t first, std::size_t elements, std::size_t chunk) {
  std::vector<ChunkSpan> spans;
  for (std::size_t offset = first; offset < elements; offset += chunk) {
    spans.push_back({offset, std::min(chunk, elements - offset)});
  }
  return spans;
}

/// The most elements per chunk `depth` slots may hold: at most half the
/// smallest device memory, and 64 MiB per slot and array beyond which a
/// longer chunk only costs memory.
std::size_t largest_chunk(const PipelineState& s, unsigned depth) {
  const std::size_t per_element = std::max<std::size_t>(s.bytes_per_element(), 1);
  std::size_t largest = (std::size_t{64} << 20) / per_element;
  const std::size_t memory = s.smallest_device_memory() / 2;
  const std::size_t fixed = s.reduction_bytes() * depth;
  if (memory > fixed) largest = std::min(largest, (memory - fixed) / (depth * per_element));
  return std::max<std::size_t>(largest, 1);
}

/// Without measurements: at least four chunks per slot of every device, so
/// that the ring turns over and the first copy-in and last copy-out are short
/// against the whole, but no chunk under 256 KiB of slots.
std::size_t unmeasured_chunk(const PipelineState& s, unsigned depth) {
  const std::size_t per_element = std::max<std::size_t>(s.bytes_per_element(), 1);
  const std::size_t turns = 4 * depth * s.options.devices.size();
  std::size_t chunk = (s.elements + turns - 1) / turns;
  chunk = std::max(chunk, (std::size_t{256} << 10) / per_element);
  chunk = std::min(chunk, largest_chunk(s, depth));
  return std::max<std::size_t>(std::min(chunk, std::max<std::size_t>(s.elements, 1)), 1);
}

/// With files, chunks of whole O_DIRECT blocks (of any element size), so
/// that every chunk's offset in the file is aligned.
std::size_t whole_blocks(const PipelineState& s, std::size_t chunk) {
  const std::size_t block = detail::direct_alignment;
  if (!s.has_files() || chunk < block) return chunk;
  return chunk / block * block;
}

/// Page-locks every array in the caller's memory; false where the backend
/// cannot (nothing is registered then).
bool register_arrays(PipelineState& s, Device& device) {
  for (auto* arrays : {&s.inputs, &s.outputs}) {
    for (detail::HostArray& array : *arrays) {
      if (!array.storage || array.registration) continue;
      array.registration = device.register_host(array.storage->host_data(), array.storage->size());
      if (!array.registration) return false;
    }
  }
  return true;
}

/// Triple buffering absorbs uneven chunk times; it takes a third more
/// memory, so it is used where three slots fit in half the device memory.
unsigned automatic_depth(const PipelineState& s, std::size_t chunk) {
  const std::size_t three = 3 * (chunk * s.bytes_per_element() + s.reduction_bytes());
  return three <= s.smallest_device_memory() / 2 ? 3 : 2;
}

}  // namespace

Pipeline::Pipeline(Executor& executor, std::size_t elements, PipelineOptions options)
    : state_(std::make_unique<PipelineState>(executor, elements, std::move(options))) {
  PipelineOptions& chosen = state_->options;
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
  detail::HostArray array;
  array.storage = std::make_shared<BufferStorage>(lent);
  array.element_bytes = element_bytes;
  array.description = "caller's memory";
  state_->inputs.push_back(std::move(array));
  forget_chunking();
  return {state_->inputs.size() - 1};
}

PipelineOutput Pipeline::add_output(std::byte* data, std::size_t count, std::size_t element_bytes) {
  if (count != state_->elements) {
    throw InvalidArgument("pipeline output of " + std::to_string(count) + " elements; the pipeline has " +
                          std::to_string(state_->elements));
  }
  detail::HostArray array;
  array.storage = std::make_shared<BufferStorage>(BorrowedMemory{data, count * element_bytes, false});
  array.element_bytes = element_bytes;
  array.description = "caller's memory";
  state_->outputs.push_back(std::move(array));
  forget_chunking();
  return {state_->outputs.size() - 1};
}

PipelineInput Pipeline::add_input_file(const std::filesystem::path& path, std::size_t element_bytes) {
  if (const std::string why = why_not_a_file(path); !why.empty()) {
    throw InvalidArgument("pipeline input file " + path.string() + " " + why + "; give a file of the pipeline's " +
                          std::to_string(state_->elements) + " elements of " + std::to_string(element_bytes) +
                          " bytes");
  }
  std::shared_ptr<InputFile> file = InputFile::open(path);
  if (file->size() != state_->elements * element_bytes) {
    throw InvalidArgument("pipeline input file " + path.string() + " has " + std::to_string(file->size()) +
                          " bytes; the pipeline's " + std::to_string(state_->elements) + " elements of " +
                          std::to_string(element_bytes) + " bytes need " +
                          std::to_string(state_->elements * element_bytes));
  }
  detail::InputFileAccess::observe_reads(*file, [busy = state_->host_busy](auto started, auto ended) {
    busy->add(started, ended);
  });
  detail::HostArray array;
  array.element_bytes = element_bytes;
  array.description = "file " + path.string();
  // Straight into the slots only where every device reads the file
  // directly: one route per array keeps every slot's shape alike. Opened
  // here, before any run, as opening the vendor's driver may take a moment.
  array.direct = true;
  for (const std::size_t device : state_->options.devices) {
    const DirectFileOpening& opening = file->direct(*state_->executor.devices()[device]);
    if (!opening.file) {
      array.direct = false;
      array.not_direct = opening.reason;
      break;
    }
  }
  array.file = std::move(file);
  state_->inputs.push_back(std::move(array));
  forget_chunking();
  return {state_->inputs.size() - 1};
}

PipelineOutput Pipeline::add_output_file(const std::filesystem::path& path, std::size_t element_bytes) {
  if (std::filesystem::is_directory(path)) {
    throw InvalidArgument("pipeline output file " + path.string() + " is a directory; name a file to write");
  }
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  if (const std::string why = why_not_a_file(folder); why != "is a directory") {
    throw InvalidArgument("pipeline output file " + path.string() + ": its folder " + folder.string() + " " +
                          (why.empty() ? "is a file" : why) + "; create the folder first");
  }
  detail::HostArray array;
  array.element_bytes = element_bytes;
  array.description = "file " + path.string();
  array.writer = std::make_shared<const detail::FileWriter>(path, state_->elements * element_bytes);
  state_->outputs.push_back(std::move(array));
  forget_chunking();
  return {state_->outputs.size() - 1};
}

PipelineReduction Pipeline::add_reduction(std::size_t values_per_chunk, std::size_t value_bytes) {
  if (values_per_chunk == 0) throw InvalidArgument("pipeline reduction of 0 values per chunk");
  state_->reductions.push_back({values_per_chunk, value_bytes, {}});
  forget_chunking();
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
  return state_->options.chunk_elements != 0 ? state_->options.chunk_elements : state_->chosen_chunk;
}

unsigned Pipeline::depth() const {
  return state_->options.depth != 0 ? state_->options.depth : state_->chosen_depth;
}

void Pipeline::forget_chunking() {
  // New arrays change the slots' size and may need registering: the next
  // run chooses again.
  state_->chosen_chunk = 0;
  state_->chosen_depth = 0;
  state_->ring_chunk = 0;
  state_->memory_route = HostMemoryRoute::automatic;
  state_->route_times.reset();
  state_->route_check.clear();
}

void Pipeline::check_args(const std::vector<PipelineArg>& args) const {
  const PipelineState& s = *state_;
  auto refuse = [](const char* kind, std::size_t index, std::size_t count) {
    throw InvalidArgument("pipeline kernel argument names " + std::string(kind) + " " + std::to_string(index) +
                          "; the pipeline has " + std::to_string(count));
  };
  for (const PipelineArg& arg : args) {
    if (const auto* input = std::get_if<PipelineInput>(&arg.value); input && input->index >= s.inputs.size()) {
      refuse("input", input->index, s.inputs.size());
    }
    if (const auto* output = std::get_if<PipelineOutput>(&arg.value); output && output->index >= s.outputs.size()) {
      refuse("output", output->index, s.outputs.size());
    }
    if (const auto* reduction = std::get_if<PipelineReduction>(&arg.value);
        reduction && reduction->index >= s.reductions.size()) {
      refuse("reduction", reduction->index, s.reductions.size());
    }
  }
}

void Pipeline::kernel(ProgramSource source, std::string kernel_name, std::vector<PipelineArg> args,
                      std::optional<std::size_t> local_size) {
  check_args(args);
  auto shared = std::make_shared<const ProgramSource>(std::move(source));
  each_chunk([this, shared, kernel_name, args = std::move(args), local_size](Graph& graph, const Chunk& c) {
    std::size_t global = c.length;
    if (local_size && *local_size != 0) global = (global + *local_size - 1) / *local_size * *local_size;
    const LaunchRange range = local_size ? LaunchRange(Extent(global), Extent(*local_size))
                                         : LaunchRange(Extent(global));
    graph.kernel(*shared, kernel_name, range, task_args(args, c), c.options(kernel_name));
  });
  state_->compile_first = [state = state_.get(), shared, kernel_name] {
    for (const std::size_t d : state->options.devices) {
      state->executor.runtime().program(*state->executor.devices()[d], *shared)->kernel(kernel_name);
    }
  };
}

void Pipeline::kernel(const TunableKernel& kernel, std::vector<PipelineArg> args) {
  kernel.validate();
  check_args(args);
  auto shared = std::make_shared<const TunableKernel>(kernel);
  each_chunk([this, shared, args = std::move(args)](Graph& graph, const Chunk& c) {
    graph.kernel(*shared, Extent(c.length), task_args(args, c), c.options(shared->name));
  });
  state_->tunable = shared;
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
  state_->tunable = nullptr;
  state_->compile_first = nullptr;
}

PipelineReport Pipeline::run() {
  PipelineState& s = *state_;
  if (!s.build) {
    throw InvalidArgument("Pipeline::run before kernel() or each_chunk() said what to do with each chunk");
  }
  // Read first: a misspelt setting throws before any work, not after it.
  const bool print_report = detail::flag_from_environment("ALLOY_REPORT");
  if (s.compile_first) s.compile_first();
  const auto started = std::chrono::steady_clock::now();
  s.host_busy->clear();
  std::vector<ChunkSpan> spans;  // every chunk streamed, in order
  detail::StreamedChunks measured;  // every command of the run, with its chunk
  for (ReductionArray& reduction : s.reductions) reduction.partials.clear();
  if (s.memory_route == HostMemoryRoute::automatic) choose_host_memory();
  if (chunk_elements() == 0 || depth() == 0) choose_chunking(spans, measured);
  if (s.memory_route == HostMemoryRoute::staged && s.route_times) check_staging(spans, measured);
  const std::vector<ChunkSpan> rest = split(spans.empty() ? 0 : spans.back().offset + spans.back().length,
                                            s.elements, chunk_elements());
  detail::StreamedChunks streamed = s.stream(rest, spans.size(), chunk_elements(), depth());
  measured.commands.insert(measured.commands.end(), streamed.commands.begin(), streamed.commands.end());
  for (std::size_t chunk : streamed.chunk_of_command) measured.chunk_of_command.push_back(spans.size() + chunk);
  spans.insert(spans.end(), rest.begin(), rest.end());
  const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started);

  // The bound's fill and drain: the shortest chunk calibration would try,
  // whatever this run's chunks were.
  const std::size_t fill = detail::calibration_sizes(s.bytes_per_element()).short_chunk;
  PipelineReport report = detail::summarize(measured, spans, wall, s.executor.devices(), s.options.devices, fill);
  report.elements = s.elements;
  report.chunk_elements = chunk_elements();
  report.chunks = spans.size();
  report.depth = depth();
  report.chunking = s.chunking;
  describe_arrays(report);
  const std::size_t rings = report.devices.size();
  for (std::size_t ring = 0; ring < rings; ++ring) {
    report.devices[ring].chunks = spans.size() / rings + (ring < spans.size() % rings ? 1 : 0);
  }
  if (print_report) std::cerr << report.to_string();
  return report;
}

void Pipeline::choose_host_memory() {
  PipelineState& s = *state_;
  detail::HostArray* sample = nullptr;
  for (auto* arrays : {&s.inputs, &s.outputs}) {
    for (detail::HostArray& array : *arrays) {
      if (array.storage && (sample == nullptr || array.storage->size() > sample->storage->size())) sample = &array;
    }
  }
  Device& device = *s.executor.devices()[s.options.devices.front()];
  HostMemoryRoute route = s.options.host_memory;
  if (sample == nullptr) {
    route = HostMemoryRoute::direct;
    s.route_reason = "no array in the caller's memory";
  } else if (route != HostMemoryRoute::automatic) {
    s.route_reason = "given";
  } else if (sample->storage->size() < (std::size_t{64} << 10)) {
    route = HostMemoryRoute::direct;
    s.route_reason = "too small to measure";
  } else {
    // A sample of the largest array, as big as a long chunk's transfer.
    const std::size_t bytes = std::min<std::size_t>(sample->storage->size(), std::size_t{4} << 20);
    try {
      const detail::RouteTimes times = detail::measure_routes(device, sample->storage->host_data(), bytes);
      route = detail::choose_route(times);
      s.route_reason = "measured on " + device.label() + ": " + times.describe();
      s.route_times = times;
      if (route == HostMemoryRoute::staged && s.has_files()) {
        // The host threads' time goes to the files: staging would compete.
        route = HostMemoryRoute::direct;
        s.route_reason += "; not staged, as host threads read or write files";
      }
    } catch (const Error& error) {
      // The device is full (of this executor's replicas, say): streaming
      // still works, only unmeasured.
      route = HostMemoryRoute::direct;
      s.route_reason = std::string("could not measure: ") + error.what();
    }
  }
  if (route == HostMemoryRoute::registered && !register_arrays(s, device)) {
    route = HostMemoryRoute::direct;
    s.route_reason += "; " + device.info().backend + " cannot register host memory";
  }
  s.memory_route = route;
  s.ring_chunk = 0;  // staging slots come and go with the route
}

void Pipeline::check_staging(std::vector<ChunkSpan>& streamed_spans, detail::StreamedChunks& measured) {
  PipelineState& s = *state_;
  s.route_check.clear();
  if (streamed_spans.empty()) {
    // No calibration chunks: two turns of every ring first, where the rest
    // is at least as long.
    const std::size_t first = std::size_t{2} * depth() * s.options.devices.size() * chunk_elements();
    if (2 * first > s.elements) return;
    streamed_spans = split(0, first, chunk_elements());
    measured = s.stream(streamed_spans, 0, chunk_elements(), depth());
  }
  std::size_t input_bytes = 0;
  std::size_t output_bytes = 0;
  for (const detail::HostArray& array : s.inputs) input_bytes += array.element_bytes;
  for (const detail::HostArray& array : s.outputs) output_bytes += array.element_bytes;
  const detail::StagingObserved observed =
      detail::observe_staging(measured, streamed_spans, input_bytes, output_bytes, s.host_busy->total());
  const std::string after = " after " + std::to_string(streamed_spans.size()) + " chunks, " + observed.describe();
  if (detail::staging_still_pays(*s.route_times, observed)) {
    s.route_check = "kept" + after;
    return;
  }
  s.memory_route = HostMemoryRoute::direct;
  s.ring_chunk = 0;  // slots without staging
  s.route_check = "back to direct" + after + ", slower than the direct transfer measured before";
}

void Pipeline::describe_arrays(PipelineReport& report) const {
  const PipelineState& s = *state_;
  auto describe = [&](const char* kind, std::size_t index, const detail::HostArray& array) {
    std::string line = std::string(kind) + " " + std::to_string(index) + ": " + array.description;
    if (array.file && array.direct) {
      Device& first = *s.executor.devices()[s.options.devices.front()];
      line += " read straight into device memory (" + array.file->direct(first).file->how() + ")";
    } else if (array.file) {
      line += " through pinned staging, " + array.file->host_reads() + " (GPUDirect Storage not used: " +
              array.not_direct + ")";
    }
    if (array.writer) line += " through pinned staging, buffered writes";
    if (!array.is_file()) {
      line += std::string(", ") + detail::route_name(s.memory_route) + " (" + s.route_reason +
              (s.route_check.empty() ? "" : "; " + s.route_check) + ")";
    }
    report.arrays.push_back(std::move(line));
  };
  for (std::size_t i = 0; i < s.inputs.size(); ++i) describe("input", i, s.inputs[i]);
  for (std::size_t i = 0; i < s.outputs.size(); ++i) describe("output", i, s.outputs[i]);
  report.host_copies = s.host_busy->total();
  if (report.host_copies > report.ideal) {
    report.ideal = report.host_copies;
    report.bound_by = "host threads reading, writing or staging";
    report.efficiency = report.wall.count() > 0 ? static_cast<double>(report.ideal.count()) / report.wall.count() : 0;
  }
}

void Pipeline::choose_chunking(std::vector<ChunkSpan>& calibrated, detail::StreamedChunks& measured) {
  PipelineState& s = *state_;
  const std::size_t devices = s.options.devices.size();
  if (s.options.chunk_elements != 0) {
    s.chosen_chunk = s.options.chunk_elements;
    s.chunking = "given";
  } else if (const std::optional<TunedChoice> tuned = tuned_chunking(); tuned) {
    s.chunking = "from the profile " + tuned->file.string();
  } else {
    detail::CalibrationSizes sizes = detail::calibration_sizes(s.bytes_per_element());
    sizes.short_chunk = std::max(whole_blocks(s, sizes.short_chunk), std::size_t{1});
    sizes.long_chunk = 4 * sizes.short_chunk;
    // Each length twice per device: the second shows what the first's
    // one-time costs hid.
    const std::size_t calibration = 2 * devices * (sizes.short_chunk + sizes.long_chunk);
    if (s.elements < 4 * calibration || sizes.long_chunk > largest_chunk(s, 2)) {
      // Too little data for calibration to pay off.
      s.chosen_chunk = whole_blocks(s, unmeasured_chunk(s, s.options.depth != 0 ? s.options.depth : 3));
      s.chunking = "without measuring (too few elements to calibrate)";
    } else {
      // The first chunks of each device: short, long, short, long, timed.
      for (std::size_t i = 0; i < 4 * devices; ++i) {
        const std::size_t length = (i / devices) % 2 == 0 ? sizes.short_chunk : sizes.long_chunk;
        const std::size_t offset = calibrated.empty() ? 0 : calibrated.back().offset + calibrated.back().length;
        calibrated.push_back({offset, length});
      }
      detail::StreamedChunks streamed = s.stream(calibrated, 0, sizes.long_chunk, 2);
      std::vector<unsigned> engines;
      for (std::size_t device : s.options.devices) engines.push_back(s.executor.devices()[device]->info().copy_engines);
      const std::vector<detail::DeviceCost> costs = detail::fit_costs(streamed, calibrated, engines);
      const std::size_t left = s.elements - calibration;
      s.chosen_chunk = whole_blocks(s, detail::best_chunk(costs, left, sizes.short_chunk, largest_chunk(s, 3)));
      s.chunking = "measured on the first " + std::to_string(calibrated.size()) + " chunks";
      measured = std::move(streamed);
    }
  }
  if (s.chosen_depth == 0) s.chosen_depth = s.options.depth != 0 ? s.options.depth : automatic_depth(s, chunk_elements());
}

std::optional<TunedChoice> Pipeline::tuned_chunking() {
  PipelineState& s = *state_;
  if (!s.tunable) return std::nullopt;
  // As the executor runs the kernel there: an entry that does not build or
  // launch gave way to the defaults, which choose no chunking.
  TunedChoice choice;
  try {
    choice = s.executor.tuned(s.options.devices.front(), *s.tunable, Extent(s.elements)).choice;
  } catch (const InvalidArgument&) {
    return std::nullopt;  // the whole array is no problem the kernel takes at once; its chunks are
  }
  if (choice.match == ProfileMatch::defaults) return std::nullopt;
  const auto value = [&](const char* name) -> std::int64_t {
    const std::optional<std::size_t> index = s.tunable->parameter_index(name);
    return index && *index < choice.configuration.size() ? choice.configuration[*index] : 0;
  };
  if (value("STREAM_CHUNK") <= 0) return std::nullopt;
  s.chosen_chunk = static_cast<std::size_t>(value("STREAM_CHUNK"));
  if (value("STREAM_DEPTH") > 0 && s.options.depth == 0) s.chosen_depth = static_cast<unsigned>(value("STREAM_DEPTH"));
  return choice;
}

}  // namespace alloy
