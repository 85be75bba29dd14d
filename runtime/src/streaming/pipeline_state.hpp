// What a Pipeline keeps: the caller's arrays, the per-device rings of slots,
// and how a run of chunks becomes one graph (internal to the runtime).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "alloy/input_file.hpp"
#include "alloy/pipeline.hpp"
#include "file_io.hpp"
#include "host_memory_route.hpp"

namespace alloy::detail {

/// A caller's array, lent to the executor as host-resident memory, or a
/// file: an input read straight into the devices' slots where every device
/// of the pipeline reads it directly, else streamed through pinned staging
/// slots, as an output file is.
struct HostArray {
  std::shared_ptr<BufferStorage> storage;  ///< the caller's memory; null for a file
  std::size_t element_bytes = 0;
  std::shared_ptr<InputFile> file;           ///< an input file
  std::shared_ptr<const FileWriter> writer;  ///< an output file
  /// An input file every device of the pipeline reads directly (GPUDirect
  /// Storage); else `not_direct` says why not, for the report.
  bool direct = false;
  std::string not_direct;
  std::string description;                   ///< for the report
  /// The caller's memory page-locked in place (HostMemoryRoute::registered).
  std::unique_ptr<HostRegistration> registration;

  bool is_file() const { return file || writer; }
};

/// How long at least one host thread was busy with some kind of work: the
/// union of the intervals threads report. Thread-safe.
class BusyTime {
 public:
  using Clock = std::chrono::steady_clock;
  void add(Clock::time_point start, Clock::time_point end);
  std::chrono::nanoseconds total() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> intervals_;
};

/// Page-locked host memory between a file and a device slot, aligned for O_DIRECT.
struct Staging {
  std::shared_ptr<HostBuffer> pinned;
  std::shared_ptr<BufferStorage> view;  ///< borrowed over the aligned part
};

struct ReductionArray {
  std::size_t values_per_chunk = 0;
  std::size_t value_bytes = 0;
  std::vector<std::byte> partials;  ///< per chunk, in chunk order, after a run

  std::size_t slot_bytes() const { return values_per_chunk * value_bytes; }
};

/// One device's slots: per slot, one device buffer per array.
struct Ring {
  struct Slot {
    std::vector<std::shared_ptr<BufferStorage>> inputs, outputs, reductions;
    /// Per input and output: staging where the array goes through it (a
    /// file, or staged caller memory), else empty.
    std::vector<Staging> staged_inputs, staged_outputs;
  };
  std::vector<Slot> slots;
};

/// Elements [offset, offset + length) of every array.
struct ChunkSpan {
  std::size_t offset = 0;
  std::size_t length = 0;
};

/// One submission of chunks and what it measured.
struct StreamedChunks {
  std::vector<CommandTime> commands;
  /// Per command, the chunk it belongs to (its position among the spans).
  std::vector<std::size_t> chunk_of_command;
};

struct PipelineState {
  PipelineState(Executor& on, std::size_t count, PipelineOptions chosen)
      : executor(on), elements(count), options(std::move(chosen)) {}

  Executor& executor;
  std::size_t elements;
  PipelineOptions options;
  std::vector<HostArray> inputs;
  std::vector<HostArray> outputs;
  std::vector<ReductionArray> reductions;
  std::function<void(Graph&, const Chunk&)> build;
  std::shared_ptr<const TunableKernel> tunable;  ///< when kernel(TunableKernel) set `build`
  /// Compiles kernel()'s program on each device before anything streams: a
  /// compile error then ends run() once, before any chunk is submitted.
  std::function<void()> compile_first;
  std::string chunking;  ///< how the chunk size was chosen, for the report
  /// How the caller's memory travels, once decided (never automatic then).
  HostMemoryRoute memory_route = HostMemoryRoute::automatic;
  std::string route_reason;  ///< what decided it, for the report
  /// The measurement that chose the route, where it was measured.
  std::optional<RouteTimes> route_times;
  /// What the first staged chunks of a run said of that choice, for the report.
  std::string route_check;
  /// When host tasks were reading or writing files or staging memory.
  std::shared_ptr<BusyTime> host_busy = std::make_shared<BusyTime>();
  /// What the first automatic run chose (or the options), kept for the next runs.
  std::size_t chosen_chunk = 0;
  unsigned chosen_depth = 0;
  std::vector<Ring> rings;  ///< per entry of options.devices
  std::size_t ring_chunk = 0;  ///< what `rings` were made for
  unsigned ring_depth = 0;

  /// Slot bytes per element over all arrays; per slot for reductions.
  std::size_t bytes_per_element() const;
  std::size_t reduction_bytes() const;
  std::size_t smallest_device_memory() const;
  bool has_files() const;
  /// Goes through page-locked staging slots: a file not read directly, or
  /// staged caller's memory.
  bool staged(const HostArray& array) const;
  /// InvalidArgument naming both sizes when `depth` slots of `chunk`
  /// elements do not fit a device.
  void check_fits(std::size_t chunk, unsigned depth) const;
  void make_rings(std::size_t chunk, unsigned depth);
  /// Streams `spans` (chunk numbers from `first_chunk`, for names) through
  /// rings of `depth` slots of `chunk` elements, timed, and waits: throws
  /// the first failure. Appends the reductions' partials in chunk order.
  StreamedChunks stream(const std::vector<ChunkSpan>& spans, std::size_t first_chunk, std::size_t chunk,
                        unsigned depth);

 private:
  /// Input `a`'s part of chunk `c` into its slot: read straight into it from
  /// a file read directly, else read or staged first on a host thread where
  /// it goes through staging.
  void add_copy_in(Graph& graph, const Chunk& c, std::size_t a, const ChunkSpan& span) const;
  /// Output `a`'s slot back to its part of the array or file.
  void add_copy_out(Graph& graph, const Chunk& c, std::size_t a, const ChunkSpan& span) const;
  /// `work`, its time counted in host_busy.
  std::function<void()> timed(std::function<void()> work) const;
};

}  // namespace alloy::detail
