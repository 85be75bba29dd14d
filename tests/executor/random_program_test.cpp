// Random programs run by the executor and checked against a sequential model
// on the host: kernels, copies, fills, file reads (straight into a device's
// replica where the device reads files directly: the emulated devices of
// this test model GPUDirect Storage), host tasks and async tasks (which
// complete some polls after they start) over overlapping and
// nested slices (a task writing part of what another still fills, single
// elements written inside read ranges, reductions), graphs replayed several
// times, 1-3 compute lanes, one or two devices, memory caps that force
// eviction, two executors on one runtime at once, and kernels that want a
// buffer's records (pairs of uints) in a layout of their own: aos, soa or
// aosoa, different ones in turn on one buffer; in some programs a profile
// says to stage the records pair_sum reads on the host (packed there and
// uploaded), the rest converting on the device. A third of the executors
// trace: their results must not change, and their trace must hold together.
//
// A third of the executors also meet failures: host tasks that change their
// range and throw, async tasks whose start or poll throws, synchronize calls
// in mid-program (which throw when what they wait for failed), and a thread
// of its own that waits on each run as it is submitted. The model knows
// which tasks fail: a task that touches an element whose last writer failed
// does not run, and what it was to write counts as failed in turn; wait()
// forgets. Run under ThreadSanitizer, these check that failures cross threads
// safely.
//
// By default as many programs as fit in 60 s run (ALLOY_RANDOM_SECONDS
// changes that); ALLOY_RANDOM_PROGRAMS=N runs exactly N. The first program's
// seed is random and printed; ALLOY_RANDOM_SEED=<seed> starts from it, and
// ALLOY_RANDOM_PROGRAMS=1 with it replays the one program a failure names;
// ALLOY_RANDOM_SHOW=1 prints each program before it runs (for one that hangs).
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "embedded/conformance_source.hpp"
#include "embedded/slices_source.hpp"
#include "alloy/utilization_report.hpp"
#include "embedded/pair_layouts_source.hpp"
#include "support/layout_kernels.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const ProgramSource kernels{"conformance.cl", std::string(alloy_kernels::conformance_source), ""};
/// Kernels a background executor may run in slices.
const ProgramSource sliceable{"slices.cl", std::string(alloy_kernels::slices_source), ""};
constexpr int elements = 256;
constexpr int pairs = elements / 2;  ///< a buffer as records: elements 2i and 2i + 1

/// Elements of the file that file_read steps read from, each file_value(i).
constexpr int file_elements = 2 * elements;
std::uint32_t file_value(int i) { return static_cast<std::uint32_t>(i) * 2654435761u + 12345u; }

/// The file, written once per process where O_DIRECT works (not a memory
/// file system), so that devices that read files directly (emulated with
/// storage=) take that route and the others read through host memory.
/// Each part opens it for its own executor: an InputFile keeps what the
/// devices it read into opened, and must not outlive their Runtime.
const std::filesystem::path& values_file() {
  static TemporaryFolder folder("alloy-random-file");
  static const std::filesystem::path path = [] {
    std::vector<std::uint32_t> values(file_elements);
    for (int i = 0; i < file_elements; ++i) values[i] = file_value(i);
    std::filesystem::path written = folder.path / "values.bin";
    std::ofstream(written, std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    return written;
  }();
  return path;
}

/// Every buffer's host layout: records of two uints.
struct Pair {
  std::uint32_t a, b;
};
HostRecord pair_record() { return host_record<Pair>("Pair", {ALLOY_HOST_FIELD(Pair, a), ALLOY_HOST_FIELD(Pair, b)}); }

const std::vector<std::string> pair_layouts = {"aos", "soa", "aosoa:3", "aosoa:8"};

/// pair_scale or pair_sum with its records in pair_layouts[layout]; each
/// layout has a name of its own, for a profile entry of its own.
TunableKernel pair_kernel(const std::string& kernel_name, int layout) {
  TunableKernel kernel;
  kernel.name = "test." + kernel_name + "." + pair_layouts[layout];
  kernel.source = {"pair_layouts.cl", std::string(alloy_kernels::pair_layouts_source), ""};
  kernel.kernel_name = kernel_name;
  kernel.parameters = {{"PAIRS", {0, 1, 2, 3}, 0, pair_layouts}};
  kernel.launch = {{0, {}, {}, {32, {}, {}}}};
  kernel.records = {{"pairs", {{"a", ScalarType::u32}, {"b", ScalarType::u32}}, "n", "PAIRS"}};
  return with_only(kernel, "PAIRS", layout);
}

/// A second runtime over the same devices whose profiles stage the records
/// of pair_sum and pair_scale on the host in every layout: pair_sum reads
/// them, so they are staged; pair_scale writes them, so they convert on the
/// device all the same.
struct StagingRuntime {
  TemporaryFolder folder{"random-staging"};
  std::unique_ptr<Runtime> runtime;

  StagingRuntime() {
    for (Device* device : selected_devices()) {
      DeviceProfile profile = DeviceProfile::for_device(device->info());
      for (int layout = 0; layout < static_cast<int>(pair_layouts.size()); ++layout) {
        for (const auto& [name, problem] : {std::pair{"pair_sum", 1}, std::pair{"pair_scale", pairs}}) {
          const TunableKernel kernel = pair_kernel(name, layout);
          ProfileEntry entry;
          entry.kernel = kernel.name;
          entry.source_hash = kernel.source_hash();
          entry.problem = Extent(problem);
          entry.configuration = {{"PAIRS", layout}};
          entry.seconds = 1e-5;
          entry.staged_on_host = {"pairs"};
          profile.put(entry);
        }
      }
      write_profile(ProfileStore::file_for(folder.path, device->info()), profile);
    }
    RuntimeOptions options;
    options.profiles = folder.path;
    options.cache_dir = alloy::test::runtime().program_cache().dir();
    runtime = std::make_unique<Runtime>(options);
  }

  /// The device of this runtime at the place of `device` in the shared one
  /// (every Runtime of a process lists its devices in one order).
  Device* same_as(const Device* device) const {
    const auto& shared = alloy::test::runtime().devices();
    const auto position = std::find(shared.begin(), shared.end(), device) - shared.begin();
    return runtime->devices().at(static_cast<std::size_t>(position));
  }
};

StagingRuntime& staging_runtime() {
  static StagingRuntime staging;
  return staging;
}

/// One step of a program, applied to the executor or to the host model.
struct Step {
  enum Kind {
    scale, host_scale, reduce, host_reduce, kernel_copy, copy, fill, observe, pair_scale, pair_sum, async_scale,
    file_read,  ///< the file's elements [to, to + count) into [first, first + count)
    // Only in parts that meet failures:
    failing_host,   ///< scales its range on the host, then throws
    failing_async,  ///< throws from its start (even offset) or at its factor-th poll (odd)
    synchronize,    ///< Executor::synchronize of its range; nothing in a graph
  };
  Kind kind = scale;
  int source = 0;  // buffer read (the only buffer of scale, fill, observe)
  int target = 0;  // buffer written by reduce and the copies
  int first = 0;   // range read or changed: [first, first + count)
  int count = 1;
  int to = 0;      // where a copy writes, the element a reduction writes, or the file element a read starts at
  std::uint32_t factor = 1;
  std::uint32_t offset = 0;  // also the fill value
  int record = -1;           // observe: where what it sees is kept
  int layout = 0;            // pair_scale, pair_sum: index into pair_layouts
};

const char* name(Step::Kind kind) {
  static constexpr const char* names[] = {"scale",       "host_scale",  "reduce",        "host_reduce",
                                          "kernel_copy", "copy",        "fill",          "observe",
                                          "pair_scale",  "pair_sum",    "async_scale",   "file_read",
                                          "failing_host",
                                          "failing_async", "synchronize"};
  return names[kind];
}

std::string describe(const Step& step) {
  std::ostringstream text;
  text << name(step.kind) << " B" << step.source << "[" << step.first << ", "
       << step.first + step.count << ")";
  if (step.kind == Step::pair_scale || step.kind == Step::pair_sum) {
    text << " (whole, as " << pair_layouts[step.layout] << ")";
  }
  if (step.kind == Step::reduce || step.kind == Step::host_reduce || step.kind == Step::pair_sum) {
    text << " -> B" << step.target << "[" << step.to << "]";
  }
  if (step.kind == Step::kernel_copy || step.kind == Step::copy) {
    text << " -> B" << step.target << "[" << step.to << ", " << step.to + step.count << ")";
  }
  if (step.kind == Step::file_read) text << " <- file[" << step.to << ", " << step.to + step.count << ")";
  return text.str();
}

/// Mostly short ranges, so that partial and nested overlaps are common.
int random_count(std::mt19937& random) {
  switch (random() % 4) {
    case 0: return 1;
    case 1: return 1 + static_cast<int>(random() % 8);
    case 2: return 1 + static_cast<int>(random() % 64);
    default: return 1 + static_cast<int>(random() % elements);
  }
}

Step random_step(std::mt19937& random, int buffers, int& records, bool failures) {
  Step step;
  step.kind = static_cast<Step::Kind>(random() % 12);
  if (failures) {
    // About one step in eight fails, and one in ten synchronizes.
    switch (random() % 40) {
      case 0: case 1: step.kind = Step::failing_host; break;
      case 2: case 3: case 4: step.kind = Step::failing_async; break;
      case 5: case 6: case 7: case 8: step.kind = Step::synchronize; break;
      default: break;
    }
  }
  step.source = static_cast<int>(random() % buffers);
  step.target = static_cast<int>(random() % buffers);
  step.count = random_count(random);
  step.first = static_cast<int>(random() % (elements - step.count + 1));
  step.factor = 1 + static_cast<std::uint32_t>(random() % 5);
  step.offset = static_cast<std::uint32_t>(random() % 1000);
  switch (step.kind) {
    case Step::reduce:
    case Step::host_reduce:
      // Half the time the element written lies inside the range read.
      step.to = random() % 2 == 0 ? step.first + static_cast<int>(random() % step.count)
                                  : static_cast<int>(random() % elements);
      if (random() % 2 == 0) step.target = step.source;
      break;
    case Step::kernel_copy:
    case Step::copy: {
      step.to = static_cast<int>(random() % (elements - step.count + 1));
      const bool overlap = step.to < step.first + step.count && step.first < step.to + step.count;
      if (step.target == step.source && overlap) step.target = (step.source + 1) % buffers;
      if (step.target == step.source && overlap) step.kind = Step::scale;  // one buffer only
      break;
    }
    case Step::observe:
      step.record = records++;
      break;
    case Step::file_read:
      step.to = static_cast<int>(random() % (file_elements - step.count + 1));
      break;
    case Step::pair_scale:
    case Step::pair_sum:
      step.layout = static_cast<int>(random() % pair_layouts.size());
      step.first = 0;
      step.count = elements;
      step.to = static_cast<int>(random() % elements);
      // A layout argument is its whole buffer: the sum goes elsewhere.
      if (step.target == step.source) step.target = (step.source + 1) % buffers;
      break;
    default:
      break;
  }
  return step;
}

using Values = std::vector<std::uint32_t>;

/// What a step that runs does to the model's values (failing_host too: it
/// throws only after it scaled its range).
void apply_values(const Step& step, std::vector<Values>& values, std::vector<std::vector<Values>>& seen) {
  Values& source = values[step.source];
  Values& target = values[step.target];
  switch (step.kind) {
    case Step::scale:
    case Step::host_scale:
    case Step::async_scale:
    case Step::failing_host:
      for (int i = 0; i < step.count; ++i) {
        source[step.first + i] = source[step.first + i] * step.factor + step.offset;
      }
      break;
    case Step::reduce:
    case Step::host_reduce: {
      std::uint32_t sum = 0;
      for (int i = 0; i < step.count; ++i) sum += source[step.first + i];
      target[step.to] = sum;
      break;
    }
    case Step::kernel_copy:
    case Step::copy: {
      const Values from(source.begin() + step.first, source.begin() + step.first + step.count);
      std::copy(from.begin(), from.end(), target.begin() + step.to);
      break;
    }
    case Step::fill:
      std::fill_n(source.begin() + step.first, step.count, step.offset);
      break;
    case Step::file_read:
      for (int i = 0; i < step.count; ++i) source[step.first + i] = file_value(step.to + i);
      break;
    case Step::observe:
      seen[step.record].emplace_back(source.begin() + step.first,
                                     source.begin() + step.first + step.count);
      break;
    case Step::pair_scale:
      for (int i = 0; i < pairs; ++i) {
        source[2 * i] = source[2 * i] * step.factor + step.offset;
        source[2 * i + 1] += source[2 * i];
      }
      break;
    case Step::pair_sum: {
      std::uint32_t sum = 0;
      for (int i = 0; i < pairs; ++i) sum += source[2 * i] + 2u * source[2 * i + 1];
      target[step.to] = sum;
      break;
    }
    case Step::failing_async:
    case Step::synchronize:
      break;
  }
}

/// Elements one step reads or writes.
struct Touch {
  int buffer, first, count;
  bool writes;
};

std::vector<Touch> touches(const Step& step) {
  switch (step.kind) {
    case Step::scale:
    case Step::host_scale:
    case Step::async_scale:
    case Step::failing_host:
    case Step::failing_async:
    case Step::fill:
    case Step::file_read:
      return {{step.source, step.first, step.count, true}};
    case Step::reduce:
    case Step::host_reduce:
      return {{step.source, step.first, step.count, false}, {step.target, step.to, 1, true}};
    case Step::kernel_copy:
    case Step::copy:
      return {{step.source, step.first, step.count, false}, {step.target, step.to, step.count, true}};
    case Step::observe:
    case Step::synchronize:
      return {{step.source, step.first, step.count, false}};
    case Step::pair_scale:
      return {{step.source, 0, elements, true}};
    case Step::pair_sum:
      return {{step.source, 0, elements, false}, {step.target, step.to, 1, true}};
  }
  throw std::logic_error("a step of no known kind");
}

/// One executor's buffers as the steps leave them, applied in submission
/// order, and which elements a failed task wrote last.
struct Model {
  std::vector<Values> values;
  std::vector<std::vector<bool>> failed;  ///< per element: its last writer failed
  std::vector<std::vector<Values>> seen;  ///< per observe step, one entry per time it ran
  bool failed_since_wait = false;

  Model(int buffers, int records) : values(buffers, Values(elements)), failed(buffers, std::vector<bool>(elements)), seen(records) {}

  bool any_failed(int buffer, int first, int count) const {
    const auto begin = failed[buffer].begin() + first;
    return std::find(begin, begin + count, true) != begin + count;
  }
  /// Applies a step; false if it fails (throws, or does not run), or for a
  /// synchronize that throws.
  bool apply(const Step& step) {
    const std::vector<Touch> touched = touches(step);
    bool runs = true;
    for (const Touch& touch : touched) runs = runs && !any_failed(touch.buffer, touch.first, touch.count);
    if (step.kind == Step::synchronize) return runs;
    if (runs) apply_values(step, values, seen);
    const bool fails = !runs || step.kind == Step::failing_host || step.kind == Step::failing_async;
    for (const Touch& touch : touched) {
      if (touch.writes) std::fill_n(failed[touch.buffer].begin() + touch.first, touch.count, fails);
    }
    failed_since_wait = failed_since_wait || fails;
    return !fails;
  }
  /// Executor::wait(): the executor forgets finished tasks, failed ones too.
  void forget_failures() {
    for (auto& elements_failed : failed) std::fill(elements_failed.begin(), elements_failed.end(), false);
    failed_since_wait = false;
  }
};

/// What host tasks saw, per observe step, one entry per time it ran.
struct Observations {
  std::mutex mutex;
  std::vector<std::vector<Values>> seen;
};

/// An async step's operation: done at its `polls`-th poll, and `complete`
/// runs then (and fails it, if it throws).
class Polled final : public AsyncOperation {
 public:
  Polled(int polls, std::function<void()> complete) : left_(polls), complete_(std::move(complete)) {}
  bool test() override {
    if (--left_ > 0) return false;
    complete_();
    return true;
  }

 private:
  int left_;
  std::function<void()> complete_;
};

/// Adds the step to an Executor (tasks one by one) or to a Graph: both take
/// the same calls. Returns what the call returned (a Run, or a TaskId).
template <class Target>
auto submit(const Step& step, Target& target, std::vector<Buffer<std::uint32_t>>& buffers,
            Observations& observations, const std::shared_ptr<const InputFile>& file) {
  Buffer<std::uint32_t> source = buffers[step.source];
  Buffer<std::uint32_t> written = buffers[step.target];
  const BufferSlice range = source.slice(step.first, step.count);
  const int work_items = static_cast<int>(round_up(step.count, 32));
  switch (step.kind) {
    case Step::scale:
      return target.kernel(sliceable, "scale_range", {Extent(work_items), Extent(32)},
                    {step.first, step.count, step.factor, step.offset, read_write(range)});
    case Step::host_scale:
      return target.host({read_write(range)}, [source, step]() mutable {
        for (int i = 0; i < step.count; ++i) {
          source.host()[step.first + i] = source.host()[step.first + i] * step.factor + step.offset;
        }
      });
    case Step::async_scale:
      // Completes at its `factor`-th poll, scaling then, as a received
      // message lands only when it completes.
      return target.async({read_write(range)}, [source, step]() -> std::unique_ptr<AsyncOperation> {
        return std::make_unique<Polled>(static_cast<int>(step.factor), [source, step]() mutable {
          for (int i = 0; i < step.count; ++i) {
            source.host()[step.first + i] = source.host()[step.first + i] * step.factor + step.offset;
          }
        });
      });
    case Step::reduce:
      return target.kernel(kernels, "sum_range", {Extent(1)},
                    {step.first, step.count, step.to, read(range), write(written.slice(step.to, 1))});
    case Step::host_reduce:
      return target.host({read(range), write(written.slice(step.to, 1))}, [source, written, step]() mutable {
        std::uint32_t sum = 0;
        for (int i = 0; i < step.count; ++i) sum += source.host()[step.first + i];
        written.host()[step.to] = sum;
      });
    case Step::kernel_copy:
      return target.kernel(sliceable, "copy_range", {Extent(work_items), Extent(32)},
                    {step.first, step.to, step.count, read(range),
                     write(written.slice(step.to, step.count))});
    case Step::copy:
      return target.copy(range, written.slice(step.to, step.count));
    case Step::fill:
      return target.fill(range, step.offset);
    case Step::file_read:
      return target.read_file(file, std::size_t(step.to) * sizeof(std::uint32_t), range);
    case Step::observe:
      return target.host({read(range)}, [source, step, &observations]() mutable {
        const auto values = source.host().subspan(step.first, step.count);
        std::lock_guard lock(observations.mutex);
        observations.seen[step.record].emplace_back(values.begin(), values.end());
      });
    case Step::pair_scale:
      return target.kernel(pair_kernel("pair_scale", step.layout), Extent(pairs),
                           {pairs, step.factor, step.offset, read_write(source.whole())});
    case Step::pair_sum:
      return target.kernel(pair_kernel("pair_sum", step.layout), Extent(1),
                           {pairs, read(source.whole()), step.to, write(written.slice(step.to, 1))});
    case Step::failing_host:
      return target.host({read_write(range)}, [source, step]() mutable {
        for (int i = 0; i < step.count; ++i) {
          source.host()[step.first + i] = source.host()[step.first + i] * step.factor + step.offset;
        }
        throw std::runtime_error("failing_host, on purpose");
      });
    case Step::failing_async:
      return target.async({read_write(range)}, [step]() -> std::unique_ptr<AsyncOperation> {
        if (step.offset % 2 == 0) throw std::runtime_error("failing_async's start, on purpose");
        return std::make_unique<Polled>(static_cast<int>(step.factor),
                                        [] { throw std::runtime_error("failing_async's poll, on purpose"); });
      });
    case Step::synchronize:
      break;  // not a task: run_part calls it
  }
  throw std::logic_error(std::string("submit() of a ") + name(step.kind) + " step");
}

/// One executor's share of a program: its own buffers, steps and settings.
struct Part {
  ExecutorOptions options;
  int buffers = 2;
  std::vector<Step> steps;
  int records = 0;
  int runs = 1;         // the steps are submitted this many times
  bool as_graph = false;
  bool wait_between_runs = false;
  bool wait_on_the_run = false;  ///< between runs, Run::wait() rather than Executor::wait()
  bool staged = false;           ///< on staging_runtime(): pair_sum's records staged on the host
  bool failures = false;         ///< has failing steps and synchronize calls
  bool waiter = false;           ///< a thread of its own waits on each run as it is submitted

  std::string describe() const {
    std::ostringstream text;
    text << options.devices.size() << " device(s), " << options.compute_lanes << " lane(s), policy "
         << static_cast<int>(options.policy) << ", memory cap " << options.device_memory_limit
         << ", " << buffers << " buffers, " << runs << (as_graph ? " graph run(s)" : " submission(s)")
         << (wait_between_runs ? (wait_on_the_run ? " with Run::wait()" : " with wait()") : "")
         << (staged ? ", read records staged on the host" : "") << (options.trace ? ", traced" : "")
         << (failures ? ", failures" : "") << (waiter ? ", runs waited on another thread" : "") << ", class "
         << to_string(options.priority_class.value_or(PriorityClass::normal)) << ", slice time "
         << options.slice_time.value_or(std::chrono::microseconds(0)).count() << " us:";
    for (const Step& step : steps) text << "\n  " << alloy::test::describe(step);
    return text.str();
  }
};

Part random_part(std::mt19937& random, const std::vector<Device*>& devices) {
  Part part;
  const std::size_t device_count = devices.size() >= 2 && random() % 2 == 0 ? 2 : 1;
  const std::size_t first_device = random() % (devices.size() - device_count + 1);
  part.options.devices.assign(devices.begin() + static_cast<long>(first_device),
                              devices.begin() + static_cast<long>(first_device + device_count));
  part.options.compute_lanes = 1 + static_cast<unsigned>(random() % 3);
  part.options.policy = static_cast<SchedulingPolicy>(random() % 3);
  part.buffers = 2 + static_cast<int>(random() % 3);
  // Room for the most one task uses, a pair_sum's buffer, its view (a little
  // larger in aosoa:3) and the element it writes: replicas are evicted and
  // written back all the time.
  if (random() % 3 == 0) part.options.device_memory_limit = 4 * elements * sizeof(std::uint32_t);
  part.runs = 1 + static_cast<int>(random() % 3);
  part.as_graph = random() % 2 == 0;
  part.wait_between_runs = random() % 4 == 0;
  part.wait_on_the_run = random() % 2 == 0;
  part.staged = random() % 2 == 0;
  part.failures = random() % 3 == 0;
  part.waiter = part.failures && random() % 2 == 0;
  const int length = 4 + static_cast<int>(random() % 20);
  for (int s = 0; s < length; ++s) {
    part.steps.push_back(random_step(random, part.buffers, part.records, part.failures));
  }
  part.options.trace = random() % 3 == 0;
  // Drawn last, so that a seed draws the rest as before classes came.
  part.options.priority_class = static_cast<PriorityClass>(random() % 3);
  // Short enough that a background executor slices most of its kernels.
  part.options.slice_time = std::chrono::microseconds(1 + random() % 50);
  return part;
}

/// What is wrong with a traced executor's trace, or "": every slice ends
/// after it starts, device commands sit on their device's lanes after the
/// host enqueued them, ids are unique, each task has at most one slice of
/// its own (one per part of a launch run in slices), a task held back for
/// critical work was held before any command of its own was enqueued, and
/// the report can be made from it.
std::string check_trace(const Trace& trace) {
  std::set<std::uint64_t> ids;
  std::set<std::pair<std::uint64_t, std::uint32_t>> own;  // task, and which of its launch's slices
  std::map<std::uint64_t, std::uint64_t> held_until;      // task, the end of its last hold
  std::map<std::uint64_t, std::uint64_t> first_enqueued;  // task, its first command of its own
  for (const TraceSlice& slice : trace.slices) {
    if (slice.kind == TraceKind::held_back) {
      if (!slice.task || !slice.device) return "held-back slice '" + slice.name + "' of no task or device";
      if (slice.bound_commands == 0) return "held-back slice '" + slice.name + "' under no bound";
      held_until[*slice.task] = std::max(held_until[*slice.task], slice.end_ns);
    } else if (slice.task && slice.name.rfind("task ", 0) == 0) {
      const auto [at, added] = first_enqueued.try_emplace(*slice.task, slice.enqueued_ns);
      if (!added) at->second = std::min(at->second, slice.enqueued_ns);
    }
    if (slice.end_ns < slice.start_ns) return "slice '" + slice.name + "' ends before it starts";
    if (!ids.insert(slice.id).second) return "two slices have id " + std::to_string(slice.id);
    if (slice.device) {
      if (*slice.device >= trace.devices.size()) return "slice '" + slice.name + "' on no traced device";
      const auto& lanes = trace.devices[*slice.device].lanes;
      if (std::find(lanes.begin(), lanes.end(), slice.lane) == lanes.end()) {
        return "slice '" + slice.name + "' on lane '" + slice.lane + "', which its device lacks";
      }
      if (slice.start_ns < slice.enqueued_ns) return "slice '" + slice.name + "' starts before it was enqueued";
    }
    if (slice.task && slice.kind != TraceKind::held_back && slice.name.rfind("task ", 0) == 0 &&
        !own.insert({*slice.task, slice.kernel_slice}).second) {
      return "task " + std::to_string(*slice.task) + " has two slices of its own";
    }
  }
  // Holds and enqueues are both timed on steady_clock: exactly in order.
  for (const auto& [task, until] : held_until) {
    const auto enqueued = first_enqueued.find(task);
    if (enqueued != first_enqueued.end() && enqueued->second < until) {
      return "task " + std::to_string(task) + " was held back until after its command was enqueued";
    }
  }
  analyze(trace);
  return "";
}

/// Waits on each run handed to it, on a thread of its own, as a program that
/// hands runs to another thread does.
class RunWaiter {
 public:
  RunWaiter() : thread_([this] { loop(); }) {}
  ~RunWaiter() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_one();
    thread_.join();
  }
  RunWaiter(const RunWaiter&) = delete;
  RunWaiter& operator=(const RunWaiter&) = delete;

  void add(Run run) {
    {
      std::lock_guard lock(mutex_);
      runs_.push_back(std::move(run));
    }
    changed_.notify_one();
  }
  std::string wrong() {
    std::lock_guard lock(mutex_);
    return wrong_;
  }

 private:
  void loop() {
    for (;;) {
      Run run;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || !runs_.empty(); });
        if (runs_.empty()) return;
        run = std::move(runs_.front());
        runs_.pop_front();
      }
      try {
        run.wait();
      } catch (const Error&) {
        // The run's failure: the model does not say which thread reports it.
      }
      if (!run.done()) {
        std::lock_guard lock(mutex_);
        wrong_ = "Run::wait() on the waiting thread returned before its run was done";
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Run> runs_;
  bool stopping_ = false;
  std::string wrong_;
  std::thread thread_;  // last: starts once the rest is made
};

/// Whether a call must throw, must not, or may (a failure another call may
/// have reported already).
enum class Throws { never, always, maybe };

/// "" if `call` threw (an alloy::Error) as expected, else what went wrong.
template <class Call>
std::string check_throws(Throws expected, const std::string& what, Call&& call) {
  std::string message;
  bool threw = false;
  try {
    call();
  } catch (const Error& error) {
    threw = true;
    message = error.what();
  }
  if (threw && expected == Throws::never) return what + " threw: " + message;
  if (!threw && expected == Throws::always) return what + " did not throw";
  // A failure names the task that failed, never synchronize's marker.
  if (message.find("'synchronize'") != std::string::npos) return what + " names synchronize's marker: " + message;
  return "";
}

/// Runs one part on its own executor, applying each step to the model as it
/// is submitted; returns what went wrong, or "".
std::string run_part(const Part& part, unsigned buffer_seed) {
  Model model(part.buffers, part.records);
  std::mt19937 random(buffer_seed);
  std::vector<Buffer<std::uint32_t>> buffers;
  for (Values& values : model.values) {
    for (auto& value : values) value = static_cast<std::uint32_t>(random() % 100);
    buffers.emplace_back(std::span<const std::uint32_t>(values));
    buffers.back().describe(pair_record());
  }
  Observations observations;
  observations.seen.resize(part.records);
  const std::shared_ptr<const InputFile> file = InputFile::open(values_file());

  ExecutorOptions options = part.options;
  if (part.staged) {
    for (Device*& device : options.devices) device = staging_runtime().same_as(device);
  }
  Executor executor(part.staged ? *staging_runtime().runtime : runtime(), options);
  std::optional<RunWaiter> waiter;
  if (part.waiter) waiter.emplace();
  // Whether a Run::wait() since the last wait() may have reported failures.
  bool reported_elsewhere = part.waiter;
  const auto wait_throws = [&] {
    if (!model.failed_since_wait) return Throws::never;
    return reported_elsewhere ? Throws::maybe : Throws::always;
  };
  Graph graph;
  if (part.as_graph) {
    for (const Step& step : part.steps) {
      if (step.kind != Step::synchronize) submit(step, graph, buffers, observations, file);
    }
  }
  for (int run = 0; run < part.runs; ++run) {
    Run last;
    bool last_fails = false;  // the last run has a failed task
    if (part.as_graph) {
      last = executor.run(graph);
      for (const Step& step : part.steps) {
        if (step.kind != Step::synchronize) last_fails = !model.apply(step) || last_fails;
      }
      if (waiter) waiter->add(last);
    } else {
      for (const Step& step : part.steps) {
        if (step.kind == Step::synchronize) {
          const Throws expected = model.apply(step) ? Throws::never : Throws::always;
          const BufferSlice slice = buffers[step.source].slice(step.first, step.count);
          std::string wrong = check_throws(expected, describe(step), [&] { executor.synchronize(slice); });
          if (!wrong.empty()) return wrong;
          continue;
        }
        last = submit(step, executor, buffers, observations, file);
        last_fails = !model.apply(step);
        if (waiter) waiter->add(last);
      }
    }
    if (part.wait_between_runs && part.wait_on_the_run && last.valid()) {
      const Throws expected = !last_fails ? Throws::never : part.waiter ? Throws::maybe : Throws::always;
      if (std::string wrong = check_throws(expected, "Run::wait()", [&] { last.wait(); }); !wrong.empty()) {
        return wrong;
      }
      if (!last.done()) return "Run::wait() returned before its run was done";
      reported_elsewhere = reported_elsewhere || last_fails;
    } else if (part.wait_between_runs) {
      if (std::string wrong = check_throws(wait_throws(), "wait()", [&] { executor.wait(); }); !wrong.empty()) {
        return wrong;
      }
      model.forget_failures();
      reported_elsewhere = part.waiter;
    }
  }
  for (int b = 0; b < part.buffers; ++b) {
    const Throws expected = model.any_failed(b, 0, elements) ? Throws::always : Throws::never;
    const std::string what = "synchronize(B" + std::to_string(b) + ") at the end";
    if (std::string wrong = check_throws(expected, what, [&] { executor.synchronize(buffers[b]); }); !wrong.empty()) {
      return wrong;
    }
  }
  if (std::string wrong = check_throws(wait_throws(), "wait() at the end", [&] { executor.wait(); }); !wrong.empty()) {
    return wrong;
  }
  if (waiter) {
    const std::string wrong = waiter->wrong();
    waiter.reset();
    if (!wrong.empty()) return wrong;
  }
  // wait() forgot the failures: the buffers come home whole.
  for (auto& buffer : buffers) executor.synchronize(buffer);
  if (options.trace) {
    if (std::string wrong = check_trace(executor.trace()); !wrong.empty()) return "the trace: " + wrong;
  }

  for (int b = 0; b < part.buffers; ++b) {
    const auto host = buffers[b].host();
    for (int i = 0; i < elements; ++i) {
      if (host[i] != model.values[b][i]) {
        // A stream, not "B" + std::string: GCC 12 warns falsely (-Wrestrict) on that.
        std::ostringstream text;
        text << 'B' << b << '[' << i << "] is " << host[i] << ", the model says " << model.values[b][i];
        return text.str();
      }
    }
  }
  // Runs of one observe step that no write separates may come in any order.
  for (int r = 0; r < part.records; ++r) {
    auto seen = observations.seen[r];
    auto expected = model.seen[r];
    std::sort(seen.begin(), seen.end());
    std::sort(expected.begin(), expected.end());
    if (seen != expected) return "observe step #" + std::to_string(r) + " saw other values than the model";
  }
  return "";
}

std::string run_part_safely(const Part& part, unsigned buffer_seed) {
  try {
    return run_part(part, buffer_seed);
  } catch (const std::exception& error) {
    return std::string("threw: ") + error.what();
  }
}

/// One program: one or two parts, the second on its own executor and thread.
/// False if it went wrong.
unsigned long environment_number(const char* name, unsigned long otherwise) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtoul(text, nullptr, 10) : otherwise;
}

bool check_program(unsigned seed, const std::vector<Device*>& devices) {
  std::mt19937 random(seed);
  std::vector<Part> parts{random_part(random, devices)};
  if (random() % 3 == 0) parts.push_back(random_part(random, devices));
  // A program that hangs reports nothing: ALLOY_RANDOM_SHOW=1 prints each
  // one before it runs.
  if (environment_number("ALLOY_RANDOM_SHOW", 0) != 0) {
    for (std::size_t p = 0; p < parts.size(); ++p) {
      std::fprintf(stderr, "program seed %u, executor %zu: %s\n", seed, p, parts[p].describe().c_str());
    }
  }
  std::vector<std::string> failures(parts.size());
  std::vector<std::thread> threads;
  for (std::size_t p = 1; p < parts.size(); ++p) {
    threads.emplace_back([&, p] { failures[p] = run_part_safely(parts[p], seed + static_cast<unsigned>(p)); });
  }
  failures[0] = run_part_safely(parts[0], seed);
  for (auto& thread : threads) thread.join();
  bool right = true;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (failures[p].empty()) continue;
    right = false;
    FAIL_CHECK("program seed " << seed << " (replay: ALLOY_RANDOM_SEED=" << seed
                               << " ALLOY_RANDOM_PROGRAMS=1), executor " << p << ": " << failures[p]
                               << "\n" << parts[p].describe());
  }
  return right;
}

/// While it lives, drops the warnings that report the programs' own
/// failures (a wait logs every failure past the one it throws): thousands a
/// minute, where the model checks each.
class QuietPlannedFailures {
 public:
  QuietPlannedFailures() {
    previous_ = set_log_sink([this](LogLevel level, std::string_view message) {
      if (message.starts_with("wait: ") || message.starts_with("Run::wait: ")) return;
      if (previous_) {
        previous_(level, message);
      } else {
        std::fprintf(stderr, "alloy: %s%.*s\n", level == LogLevel::warning ? "warning: " : "",
                     static_cast<int>(message.size()), message.data());
      }
    });
  }
  ~QuietPlannedFailures() { set_log_sink(previous_); }
  QuietPlannedFailures(const QuietPlannedFailures&) = delete;
  QuietPlannedFailures& operator=(const QuietPlannedFailures&) = delete;

 private:
  LogSink previous_;
};

}  // namespace

TEST_CASE("Executor.RandomPrograms.match_the_sequential_model") {
  if (!have_devices(1)) return;
  const std::vector<Device*> devices = selected_devices();
  const auto base_seed = static_cast<unsigned>(environment_number("ALLOY_RANDOM_SEED", std::random_device{}()));
  const unsigned long count = environment_number("ALLOY_RANDOM_PROGRAMS", 0);
  const auto budget = std::chrono::seconds(environment_number("ALLOY_RANDOM_SECONDS", 60));
  MESSAGE("random programs from seed " << base_seed << " (ALLOY_RANDOM_SEED) on "
                                       << devices.size() << " device(s)");
  const QuietPlannedFailures quiet;
  const auto start = std::chrono::steady_clock::now();
  unsigned long programs = 0;
  unsigned long wrong = 0;
  while (count != 0 ? programs < count : std::chrono::steady_clock::now() - start < budget) {
    if (!check_program(base_seed + static_cast<unsigned>(programs), devices)) ++wrong;
    ++programs;
    if (wrong == 10) break;  // enough to go on; the rest would only repeat
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(wrong == 0);
  MESSAGE(programs << " random programs in " << seconds << " s, " << wrong << " wrong; seeds "
                   << base_seed << " to " << base_seed + programs - 1);
}

}  // namespace alloy::test
