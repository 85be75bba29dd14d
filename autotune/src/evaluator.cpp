// One configuration at a time: check, compile, verify, time.
#include "alloy/autotune/evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <thread>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "alloy/autotune/input_generation.hpp"
#include "alloy/autotune/statistics.hpp"
#include "alloy/autotune/verification.hpp"
#include "alloy/error.hpp"
#include "compile_ahead.hpp"

namespace alloy::autotune {
namespace {

// The first line of a compiler log is usually the error itself.
std::string first_lines(const std::string& text, std::size_t lines = 3) {
  std::istringstream in(text);
  std::string line;
  std::string out;
  for (std::size_t i = 0; i < lines && std::getline(in, line);) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (!out.empty()) out += " | ";
    out += line;
    ++i;
  }
  return out.size() > 400 ? out.substr(0, 400) : out;
}

// A problem size as the kernel declares the parameter.
KernelArg dimension_argument(std::size_t size, ScalarType type, const std::string& kernel) {
  const bool fits = type == ScalarType::i32 ? size <= std::size_t(std::numeric_limits<std::int32_t>::max())
                    : type == ScalarType::u32 ? size <= std::size_t(std::numeric_limits<std::uint32_t>::max())
                                              : true;
  if (!fits) {
    throw InvalidArgument("tuning " + kernel + ": a problem size of " + std::to_string(size) +
                          " does not fit the kernel's " + std::string(to_string(type)) +
                          " argument; declare it long or ulong and give the harness argument that type");
  }
  switch (type) {
    case ScalarType::u32: return KernelArg::from(static_cast<std::uint32_t>(size));
    case ScalarType::i64: return KernelArg::from(static_cast<std::int64_t>(size));
    case ScalarType::u64: return KernelArg::from(static_cast<std::uint64_t>(size));
    default: return KernelArg::from(static_cast<int>(size));
  }
}

Measurement failed(const Configuration& configuration, Outcome outcome, std::string detail) {
  Measurement measurement;
  measurement.configuration = configuration;
  measurement.outcome = outcome;
  measurement.detail = std::move(detail);
  return measurement;
}

}  // namespace

struct Evaluator::State {
  Runtime& runtime;
  Device& device;
  const TuningTarget& target;
  Extent problem;
  MeasureOptions options;
  DeviceLimits limits;
  std::unique_ptr<Queue> queue;
  std::vector<HostArray> contents;  // every buffer's initial contents
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::vector<KernelArg> args;
  std::optional<std::vector<HostArray>> reference;  // per output buffer
  detail::CompileAhead compiler;
  // Kernels re-timed by the confirmation, kept so each round does not compile again.
  std::map<Configuration, std::shared_ptr<Kernel>> retimed;

  State(Runtime& r, Device& d, const TuningTarget& t, Extent p, MeasureOptions o)
      : runtime(r), device(d), target(t), problem(p), options(o),
        limits(DeviceLimits::of(d.info())), queue(d.create_queue()), compiler(d) {}

  void write_inputs() {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      queue->write(*buffers[i], 0, contents[i].data(), contents[i].size_bytes());
    }
  }

  std::vector<HostArray> read_outputs() {
    std::vector<HostArray> outputs;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      if (!target.harness.buffers[i].output) continue;
      outputs.emplace_back(contents[i].type(), contents[i].size());
      queue->read(*buffers[i], 0, outputs.back().data(), outputs.back().size_bytes());
    }
    queue->finish();
    return outputs;
  }

  // Waits for `event` up to the timeout; false when it took longer. The run
  // cannot be stopped, so on timeout this still waits for it to end. It
  // polls, sleeping a little longer each time (at most 2 ms): a helper
  // thread per run could still be exiting when the program ends, which
  // LeakSanitizer's exit check does not survive.
  bool wait_within_timeout(const std::shared_ptr<Event>& event) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(options.timeout_seconds));
    auto pause = std::chrono::microseconds(20);
    bool in_time = true;
    while (!event->is_complete()) {
      if (std::chrono::steady_clock::now() > deadline) {
        in_time = false;
        break;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(2));
    }
    event->wait();  // to the end, and rethrows what the run threw
    return in_time;
  }

  // Why `outputs` differ from the reference, or nothing.
  std::optional<std::string> compare(const std::vector<HostArray>& outputs) const {
    std::size_t o = 0;
    for (const HarnessBuffer& buffer : target.harness.buffers) {
      if (!buffer.output) continue;
      if (auto why = compare_output(buffer, outputs[o], (*reference)[o])) return why;
      ++o;
    }
    return std::nullopt;
  }

  // Launches `runs` timed runs of `kernel` at once and returns their times.
  // Buffers marked for it are written again before each run; the events
  // time the kernel only.
  std::vector<double> time_runs(const Kernel& kernel, const LaunchRange& range, std::size_t runs) {
    std::vector<std::shared_ptr<Event>> events;
    for (std::size_t r = 0; r < runs; ++r) {
      for (std::size_t i = 0; i < buffers.size(); ++i) {
        if (target.harness.buffers[i].reset_each_run) {
          queue->write(*buffers[i], 0, contents[i].data(), contents[i].size_bytes());
        }
      }
      events.push_back(queue->launch(kernel, range, std::span<const KernelArg>(args)));
    }
    std::vector<double> seconds;
    for (const std::shared_ptr<Event>& event : events) {
      seconds.push_back(double(event->timing().duration_ns()) * 1e-9);
    }
    return seconds;
  }

  Measurement run(const Configuration& configuration, bool capture_reference,
                  std::optional<double> best_seconds,
                  std::optional<std::chrono::steady_clock::time_point> timing_ends = std::nullopt);
};

Evaluator::Evaluator(Runtime& runtime, Device& device, const TuningTarget& target, Extent problem,
                     MeasureOptions options)
    : state_(std::make_unique<State>(runtime, device, target, problem, options)) {
  target.kernel.validate();
  if (options.min_repetitions < 1 || options.max_repetitions < options.min_repetitions ||
      !(options.timeout_seconds > 0) || !(options.hopeless_factor >= 1)) {
    throw InvalidArgument("tuning " + target.kernel.name +
                          ": measuring needs 1 <= min_repetitions <= max_repetitions, a positive "
                          "timeout and a hopeless factor of at least 1");
  }
  const Harness& harness = target.harness;
  // Sizes that do not fit their arguments are refused before any buffer is made.
  for (const HarnessArgument& argument : harness.arguments) {
    if (argument.kind == HarnessArgument::Kind::problem_dimension) {
      dimension_argument(problem[unsigned(argument.index) % 3], argument.type, target.kernel.name);
    }
  }
  for (std::size_t i = 0; i < harness.buffers.size(); ++i) {
    const std::int64_t count = buffer_elements(target.kernel, harness.buffers[i], problem);
    if (count <= 0) {
      throw InvalidArgument("tuning " + target.kernel.name + ": buffer '" + harness.buffers[i].name +
                            "' has no elements for problem " + problem.to_string());
    }
    state_->contents.push_back(initial_contents(harness.buffers[i], std::size_t(count), 0x5eed + i));
    state_->buffers.push_back(device.allocate(state_->contents.back().size_bytes()));
  }
  for (const HarnessArgument& argument : harness.arguments) {
    switch (argument.kind) {
      case HarnessArgument::Kind::buffer:
        if (argument.index >= state_->buffers.size()) {
          throw InvalidArgument("tuning " + target.kernel.name + ": an argument names buffer " +
                                std::to_string(argument.index) + " of " +
                                std::to_string(state_->buffers.size()));
        }
        state_->args.push_back(KernelArg::from(*state_->buffers[argument.index]));
        break;
      case HarnessArgument::Kind::problem_dimension:
        state_->args.push_back(
            dimension_argument(problem[unsigned(argument.index) % 3], argument.type, target.kernel.name));
        break;
      case HarnessArgument::Kind::int_constant:
        state_->args.push_back(KernelArg::from(static_cast<int>(argument.constant)));
        break;
      case HarnessArgument::Kind::float_constant:
        state_->args.push_back(KernelArg::from(static_cast<float>(argument.constant)));
        break;
    }
  }
  if (harness.reference) {
    std::vector<HostArray> expected;
    for (std::size_t i = 0; i < harness.buffers.size(); ++i) {
      if (harness.buffers[i].output) expected.emplace_back(harness.buffers[i].type, state_->contents[i].size());
    }
    harness.reference(problem, state_->contents, expected);
    state_->reference = std::move(expected);
  }
}

Evaluator::~Evaluator() = default;

Device& Evaluator::device() const { return state_->device; }

void Evaluator::compile_ahead(const Configuration& configuration) {
  if (check_configuration(state_->target.kernel, configuration, state_->problem, state_->limits)) return;
  state_->compiler.start(configured_source(state_->target.kernel, configuration));
}

void Evaluator::wait_for_compiles() { state_->compiler.wait_all(); }

Measurement Evaluator::measure(const Configuration& configuration, std::optional<double> best_seconds,
                               std::optional<std::chrono::steady_clock::time_point> timing_ends) {
  if (!state_->reference) {
    // The default configuration's outputs are the reference: measure it
    // first, so a broken default fails loudly rather than every candidate.
    const Configuration defaults = state_->target.kernel.default_configuration();
    Measurement baseline = state_->run(defaults, true, std::nullopt);
    if (baseline.outcome != Outcome::ok) {
      throw Error("tuning " + state_->target.kernel.name + " on " + state_->device.label() +
                  ": the default configuration, which is the reference, failed (" +
                  std::string(to_string(baseline.outcome)) + ": " + baseline.detail +
                  "); fix the kernel or give the target a host reference");
    }
    if (configuration == defaults) return baseline;
  }
  return state_->run(configuration, false, best_seconds, timing_ends);
}

Measurement Evaluator::State::run(const Configuration& configuration, bool capture_reference,
                                  std::optional<double> best_seconds,
                                  std::optional<std::chrono::steady_clock::time_point> timing_ends) {
  const TunableKernel& kernel = target.kernel;
  if (auto why = check_configuration(kernel, configuration, problem, limits)) {
    return failed(configuration, Outcome::invalid, *why);
  }
  const ProgramSource source = configured_source(kernel, configuration);
  std::shared_ptr<Kernel> compiled;
  try {
    compiled = compiler.get(source)->kernel(kernel.kernel_name);
  } catch (const CompileError& error) {
    compiler.forget(source);
    return failed(configuration, Outcome::compile_error, first_lines(error.log().empty() ? error.what() : error.log()));
  } catch (const Error& error) {
    compiler.forget(source);
    return failed(configuration, Outcome::compile_error, first_lines(error.what()));
  }
  compiler.forget(source);
  const LaunchRange range = configured_launch(kernel, configuration, problem);

  // First run: from fresh inputs, verified; it is also the warm-up.
  std::vector<HostArray> outputs;
  double first_seconds = 0;
  try {
    const alloy::detail::HandledErrorScope handled;
    write_inputs();
    const std::shared_ptr<Event> first = queue->launch(*compiled, range, std::span<const KernelArg>(args));
    if (!wait_within_timeout(first)) {
      queue->finish();
      return failed(configuration, Outcome::timeout,
                    "one run took longer than " + std::to_string(options.timeout_seconds) + " s");
    }
    first_seconds = double(first->timing().duration_ns()) * 1e-9;
    outputs = read_outputs();
  } catch (const Error& error) {
    // The queue may hold the failed command's aftermath: start a fresh one.
    queue = device.create_queue();
    return failed(configuration, Outcome::launch_refused, first_lines(error.what()));
  }
  if (capture_reference) {
    reference = std::move(outputs);
  } else if (auto why = compare(outputs)) {
    return failed(configuration, Outcome::wrong_result, *why);
  }

  // A first run long enough on its own has little noise: it is the time.
  if (first_seconds >= options.max_seconds) {
    Measurement measurement;
    measurement.configuration = configuration;
    measurement.seconds = measurement.low = measurement.high = first_seconds;
    measurement.repetitions = 1;
    measurement.detail = "timed once: one run takes longer than max_seconds";
    return measurement;
  }

  // Timed runs, in batches, until the spread is small or a cap is hit.
  std::vector<double> seconds;
  double total = 0;
  std::string detail;
  try {
    const alloy::detail::HandledErrorScope handled;
    while (seconds.size() < options.max_repetitions) {
      const std::size_t batch = std::min<std::size_t>(options.min_repetitions,
                                                      options.max_repetitions - seconds.size());
      for (double run_seconds : time_runs(*compiled, range, batch)) {
        seconds.push_back(run_seconds);
        total += run_seconds;
      }
      // Far slower than the best in every run so far, not just the first
      // (one slow run on a shared device is no verdict): more runs would
      // not change the ranking, and slow runs are most of a search's cost.
      const double fastest = *std::min_element(seconds.begin(), seconds.end());
      if (best_seconds && fastest > options.hopeless_factor * *best_seconds) {
        detail = "timed " + std::to_string(seconds.size()) + " times: every run far slower than the best so far";
        break;
      }
      if (relative_spread(seconds) <= options.target_spread || total >= options.max_seconds) break;
      if (timing_ends && std::chrono::steady_clock::now() >= *timing_ends) break;
    }
  } catch (const Error& error) {
    queue = device.create_queue();
    return failed(configuration, Outcome::launch_refused, first_lines(error.what()));
  }
  const TimeSummary summary = summarize(seconds);
  Measurement measurement;
  measurement.configuration = configuration;
  measurement.seconds = summary.median;
  measurement.low = summary.low;
  measurement.high = summary.high;
  measurement.spread = relative_spread(seconds);
  measurement.repetitions = seconds.size();
  measurement.detail = std::move(detail);
  return measurement;
}

std::optional<double> Evaluator::retime(const Configuration& configuration, std::size_t runs) {
  State& state = *state_;
  try {
    const alloy::detail::HandledErrorScope handled;
    std::shared_ptr<Kernel>& kernel = state.retimed[configuration];
    if (!kernel) {
      const ProgramSource source = configured_source(state.target.kernel, configuration);
      kernel = state.compiler.get(source)->kernel(state.target.kernel.kernel_name);
      state.compiler.forget(source);
    }
    const LaunchRange range = configured_launch(state.target.kernel, configuration, state.problem);
    return summarize(state.time_runs(*kernel, range, std::max<std::size_t>(runs, 1))).median;
  } catch (const Error&) {
    state.queue = state.device.create_queue();
    return std::nullopt;
  }
}

}  // namespace alloy::autotune
