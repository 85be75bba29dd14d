// Double- and triple-buffered streaming of host arrays through devices, chunk
// by chunk, with copies overlapped with compute.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "alloy/executor.hpp"

namespace alloy {
namespace detail {
struct PipelineState;
struct ChunkSpan;
struct StreamedChunks;
}

/// Handles to a pipeline's arrays, as Pipeline::input/output/reduction give them.
struct PipelineInput {
  std::size_t index = 0;
};
struct PipelineOutput {
  std::size_t index = 0;
};
struct PipelineReduction {
  std::size_t index = 0;
};

/// The chunk's first element and its element count, as kernel arguments
/// (both passed as `ulong`).
enum class ChunkValue { offset, length };
inline constexpr ChunkValue chunk_offset = ChunkValue::offset;
inline constexpr ChunkValue chunk_length = ChunkValue::length;

/// One argument of the per-chunk kernel: the chunk's device slot of an
/// input (read), an output (written) or a reduction (written), the chunk's
/// offset or length, or a scalar.
struct PipelineArg {
  PipelineArg(PipelineInput input) : value(input) {}
  PipelineArg(PipelineOutput output) : value(output) {}
  PipelineArg(PipelineReduction reduction) : value(reduction) {}
  PipelineArg(ChunkValue chunk) : value(chunk) {}
  template <class T>
    requires std::is_arithmetic_v<T>
  PipelineArg(T scalar) : value(KernelArg::from(scalar)) {}

  std::variant<PipelineInput, PipelineOutput, PipelineReduction, ChunkValue, KernelArg> value;
};

/// One chunk as the graph built for it (Pipeline::each_chunk) sees it: its
/// elements [offset, offset + length) and the device slots holding them.
/// Tasks on the slots must run on `device` (use options()).
struct Chunk {
  std::size_t index = 0;
  std::size_t offset = 0;
  std::size_t length = 0;
  std::size_t device = 0;  ///< index into the executor's devices

  /// The slot holding this chunk of the input on the device: read it.
  BufferSlice in(PipelineInput input) const;
  /// The slot this chunk of the output is copied home from: write it.
  BufferSlice out(PipelineOutput output) const;
  /// The slot of this chunk's partial values of the reduction: write it.
  BufferSlice partial(PipelineReduction reduction) const;
  /// Options placing a task on the chunk's device, named for the chunk.
  TaskOptions options(const std::string& name) const;

  // Where the slots are: the pipeline, the device's ring, the slot in it.
  const detail::PipelineState* state = nullptr;
  std::size_t ring = 0;
  std::size_t slot = 0;
};

/// How the caller's (pageable) memory reaches the devices.
enum class HostMemoryRoute {
  automatic,   ///< measured on the first run's first device (docs/streaming.md)
  direct,      ///< transfers from and to the memory as it is
  registered,  ///< page-locked in place by the backend for the pipeline's life (CUDA, HIP)
  staged,      ///< host threads copy each chunk through page-locked staging slots
};

struct PipelineOptions {
  /// Elements per chunk; 0 chooses (see docs/streaming.md): a tunable
  /// kernel's profile entry where it sets STREAM_CHUNK, else the size the
  /// first chunks' measured copy and kernel times predict fastest.
  std::size_t chunk_elements = 0;
  /// Slots per array and device: 2 is double buffering, 3 triple; 0
  /// chooses 3 where three slots fit in half the device memory, else 2.
  unsigned depth = 0;
  /// Indices into the executor's devices that take chunks, in turn; empty:
  /// all of them.
  std::vector<std::size_t> devices;
  /// registered falls back to direct where the backend cannot register.
  HostMemoryRoute host_memory = HostMemoryRoute::automatic;
};

/// Per device: the device-measured time of each lane's commands.
struct PipelineDeviceReport {
  std::size_t device = 0;  ///< index into the executor's devices
  std::string label;       ///< the device, for people
  std::size_t chunks = 0;
  unsigned copy_engines = 1;  ///< DeviceInfo::copy_engines: 2 overlaps both directions
  std::chrono::nanoseconds copy_in{0};
  std::chrono::nanoseconds compute{0};
  std::chrono::nanoseconds copy_out{0};
  /// The shortest this device's work could take: its largest lane total
  /// with two copy engines, else max(copy-in + copy-out, compute).
  std::chrono::nanoseconds ideal{0};
  std::string bound_by;  ///< "compute", "copy-in", "copy-out" or "copy-in + copy-out"
};

/// What a pipeline run measured, and how close it came to full overlap.
struct PipelineReport {
  std::size_t elements = 0;
  std::size_t chunk_elements = 0;  ///< after the calibration chunks, if any
  std::size_t chunks = 0;
  unsigned depth = 0;
  /// How the chunk size was chosen: "given", "measured on the first 4
  /// chunks", "from the profile <file>", or "without measuring (...)".
  std::string chunking;
  std::vector<PipelineDeviceReport> devices;
  /// How each input, then each output, reaches the devices, e.g. "input 0:
  /// caller's memory, copied directly", "input 1: file data.bin read
  /// straight into device memory (GPUDirect Storage (cuFile))" or "input 1:
  /// file data.bin through pinned staging, O_DIRECT reads (GPUDirect
  /// Storage not used: ...)".
  std::vector<std::string> arrays;
  /// How long at least one host thread was reading or writing a file, or
  /// copying the caller's memory through staging slots.
  std::chrono::nanoseconds host_copies{0};
  std::chrono::nanoseconds wall{0};   ///< from run() until every chunk was home
  /// The largest device ideal (devices run side by side), or the host
  /// threads' busy time where that is larger.
  std::chrono::nanoseconds ideal{0};
  /// ideal ÷ wall: 1 when copies hide entirely behind compute or the
  /// other way round.
  double efficiency = 0.0;
  /// What no chunking or route could beat: per device, the slowest lane's
  /// work over all its elements at the best rate any chunk of this run
  /// reached on it (with one copy engine, copy-in and copy-out share it),
  /// plus filling and draining the pipeline with a chunk of 256 KiB of
  /// slots, whatever the run's chunks; the largest over the devices. Unlike
  /// `ideal`, a poor chunk size or route does not lower it, so
  /// bound_efficiency shows them (one chunk of everything scores about 0.5
  /// where copies and compute take as long).
  std::chrono::nanoseconds bound{0};
  double bound_efficiency = 0.0;  ///< bound ÷ wall
  /// The lane of the device with the largest ideal, e.g. "compute on
  /// opencl:0 ...", or "host threads reading, writing or staging".
  std::string bound_by;

  /// A few lines for people, as ALLOY_REPORT=1 prints it.
  std::string to_string() const;
};

/// Streams host arrays the caller owns through one or more devices, chunk by
/// chunk: on each device a ring of `depth` slots per array, copy-in of a
/// chunk on the copy-in lane, its kernel (or graph) on a compute lane, its
/// copy-out on the copy-out lane. A slot is reused once the commands that
/// used it for an earlier chunk are done, ordered by device events, not by
/// the host. Nothing copies the whole arrays: copies go straight between the
/// caller's memory and the slots (Buffer<T>::borrow).
///
///   alloy::Pipeline pipeline(executor, n);  // chunk size and depth measured
///   auto x = pipeline.input(std::span<const float>(host_x));
///   auto y = pipeline.output(std::span<float>(host_y));
///   pipeline.kernel(source, "scale", {x, y, alloy::chunk_length, 2.0f});
///   alloy::PipelineReport report = pipeline.run();  // host_y now holds the results
///
/// Every array holds `elements` elements of its own type. Not thread-safe;
/// must not outlive its executor's Runtime. The arrays must stay valid, and
/// untouched by the program, while run() runs. Errors: InvalidArgument at
/// once for arrays of the wrong size and kernel arguments naming an array
/// the pipeline does not have; from run(), for slots that do not fit a
/// device's memory (both sizes named); a failing chunk makes run() throw
/// the executor's Error naming the chunk's task ("chunk 3: scale"), after
/// the chunks not depending on it were finished, and leaves the executor
/// usable (but for a device whose kernel faulted on CUDA or HIP: the
/// driver keeps such a fault for the process's life, docs/streaming.md).
class Pipeline {
 public:
  Pipeline(Executor& executor, std::size_t elements, PipelineOptions options = {});
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  template <class T>
  PipelineInput input(std::span<const T> data) {
    return add_input(reinterpret_cast<const std::byte*>(data.data()), data.size(), sizeof(T));
  }
  template <class T>
  PipelineOutput output(std::span<T> data) {
    static_assert(!std::is_const_v<T>, "outputs are written");
    return add_output(reinterpret_cast<std::byte*>(data.data()), data.size(), sizeof(T));
  }
  /// An input read from a file of `elements` values of T (InvalidArgument
  /// for another size), chunk by chunk while the devices work on other
  /// chunks: where every device of the pipeline opens the file directly
  /// (GPUDirect Storage, InputFile::direct), straight from storage into the
  /// devices' slots; else into pinned staging slots on host threads, with
  /// O_DIRECT where the file system allows it, and copied up from there.
  /// The report says which, and why not directly (docs/streaming.md). The
  /// devices are asked here. Error when it cannot be opened.
  template <class T>
  PipelineInput input_file(const std::filesystem::path& path) {
    return add_input_file(path, sizeof(T));
  }
  /// An output written to a file created (or truncated) to `elements`
  /// values of T, chunk by chunk from pinned staging slots.
  template <class T>
  PipelineOutput output_file(const std::filesystem::path& path) {
    return add_output_file(path, sizeof(T));
  }
  /// A reduction: each chunk's work writes `values_per_chunk` values of T
  /// into its slot (Chunk::partial); reduce() combines them on the host.
  template <class T>
  PipelineReduction reduction(std::size_t values_per_chunk) {
    return add_reduction(values_per_chunk, sizeof(T));
  }

  /// Per chunk, `kernel_name` of `source` over `chunk_length` work-items
  /// (rounded up to a multiple of `local_size` when given: the kernel
  /// must then skip work-items past the length).
  void kernel(ProgramSource source, std::string kernel_name, std::vector<PipelineArg> args,
              std::optional<std::size_t> local_size = std::nullopt);
  /// Per chunk, a tunable kernel for the problem Extent(chunk length).
  void kernel(const TunableKernel& kernel, std::vector<PipelineArg> args);
  /// Per chunk, whatever tasks `build` adds to the chunk's graph between
  /// the copies in and out: read Chunk::in, write Chunk::out and
  /// Chunk::partial, on Chunk::device.
  void each_chunk(std::function<void(Graph&, const Chunk&)> build);

  /// Streams every chunk and waits for all of them; then the outputs hold
  /// their results. Prints the report when ALLOY_REPORT=1.
  PipelineReport run();

  /// The reduction's values combined over the chunks of the last run, in
  /// chunk order: values_per_chunk values, each folded with `combine`
  /// from `identity`.
  template <class T, class Combine>
  std::vector<T> reduce(PipelineReduction reduction, T identity, Combine combine) const {
    const std::span<const std::byte> bytes = partials(reduction, sizeof(T));
    const std::size_t per_chunk = values_per_chunk(reduction);
    std::vector<T> result(per_chunk, identity);
    for (std::size_t i = 0; i * sizeof(T) < bytes.size(); ++i) {
      T value;
      std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
      result[i % per_chunk] = combine(result[i % per_chunk], value);
    }
    return result;
  }

  /// The elements per chunk: the options', else what the first run chose
  /// (0 before it).
  std::size_t chunk_elements() const;
  /// Slots per device and array: the options', else what the first run
  /// chose (0 before it).
  unsigned depth() const;

 private:
  PipelineInput add_input(const std::byte* data, std::size_t count, std::size_t element_bytes);
  PipelineOutput add_output(std::byte* data, std::size_t count, std::size_t element_bytes);
  PipelineInput add_input_file(const std::filesystem::path& path, std::size_t element_bytes);
  PipelineOutput add_output_file(const std::filesystem::path& path, std::size_t element_bytes);
  PipelineReduction add_reduction(std::size_t values_per_chunk, std::size_t value_bytes);
  std::span<const std::byte> partials(PipelineReduction reduction, std::size_t value_bytes) const;
  std::size_t values_per_chunk(PipelineReduction reduction) const;
  std::vector<TaskArg> task_args(const std::vector<PipelineArg>& args, const Chunk& chunk) const;
  /// InvalidArgument for a handle to an array the pipeline does not have.
  void check_args(const std::vector<PipelineArg>& args) const;
  void forget_chunking();
  /// Decides once how the caller's memory travels (HostMemoryRoute),
  /// measuring on the first device when the options leave it automatic.
  void choose_host_memory();
  /// Where the route was measured as staged: streams the run's first
  /// chunks (the calibration's, if any) and goes direct for the rest, and
  /// later runs, if staging did worse than the direct transfer measured.
  void check_staging(std::vector<detail::ChunkSpan>& streamed_spans, detail::StreamedChunks& measured);
  /// The report's array lines and file time.
  void describe_arrays(PipelineReport& report) const;
  /// Sets the chunk size and depth, streaming the calibration chunks when
  /// it measures (their spans and commands are appended).
  void choose_chunking(std::vector<detail::ChunkSpan>& calibrated, detail::StreamedChunks& streamed);
  /// The tunable kernel's profile entry, when it sets STREAM_CHUNK.
  std::optional<TunedChoice> tuned_chunking();

  std::unique_ptr<detail::PipelineState> state_;
};

}  // namespace alloy
