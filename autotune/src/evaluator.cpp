// One configuration at a time: check, compile, verify, time.
#include "alloy/autotune/evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <thread>

#include "alloy/autotune/statistics.hpp"
#include "alloy/autotune/verification.hpp"
#include "alloy/configured_kernel.hpp"
#include "alloy/error.hpp"
#include "compile_ahead.hpp"
#include "conversion_timing.hpp"
#include "harness_data.hpp"
#include "packed_matrices.hpp"

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

Measurement failed(const Configuration& configuration, Outcome outcome, std::string detail) {
  Measurement measurement;
  measurement.configuration = configuration;
  measurement.outcome = outcome;
  measurement.detail = std::move(detail);
  return measurement;
}

}  // namespace

// A configuration's compiled kernels with their launch ranges: the tuned
// kernel, then the harness's further passes.
struct Passes {
  std::vector<std::shared_ptr<Kernel>> kernels;
  std::vector<LaunchRange> ranges;
};

struct Evaluator::State {
  Runtime& runtime;
  Device& device;
  // Undescribed matrix arguments taken as packed row-major, as the
  // executor takes them.
  const TuningTarget target;
  Extent problem;
  MeasureOptions options;
  DeviceLimits limits;
  std::unique_ptr<Queue> queue;
  detail::HarnessData data;
  detail::ConversionTiming conversions;
  // The kernel described with each further pass's name and launch, so the
  // space's checks and launch rules apply to the pass too.
  std::vector<TunableKernel> pass_kernels;
  std::optional<std::vector<HostArray>> reference;  // per output buffer
  // The spread of the default configuration's timed runs, once measured.
  std::optional<double> noise;
  detail::CompileAhead compiler;
  // Kernels re-timed by the confirmation, kept so each round does not compile again.
  std::map<Configuration, Passes> retimed;

  State(Runtime& r, Device& d, const TuningTarget& t, Extent p, MeasureOptions o)
      : runtime(r), device(d), target(detail::with_packed_matrices(t, p)), problem(p), options(o),
        limits(DeviceLimits::of(d.info())), queue(d.create_queue()), data(d, target, p),
        conversions(r, d, target, data), compiler(d) {
    for (const HarnessPass& pass : target.harness.passes) {
      TunableKernel kernel = target.kernel;
      kernel.kernel_name = pass.kernel_name;
      kernel.launch = pass.launch;
      pass_kernels.push_back(std::move(kernel));
    }
  }

  // Why the configuration cannot run, for the kernel, its passes or its layouts.
  std::optional<std::string> invalid(const Configuration& configuration) const {
    if (auto why = check_configuration(target.kernel, configuration, problem, limits)) return why;
    for (const TunableKernel& pass : pass_kernels) {
      if (auto why = check_configuration(pass, configuration, problem, limits)) {
        return "pass " + pass.kernel_name + ": " + *why;
      }
    }
    return data.layout_problem(configuration);
  }

  // Compiles the configuration once (as the runtime would configure it from
  // a profile) and takes every pass's kernel from it.
  Passes compile(const Configuration& configuration) {
    // Taken from the compile-ahead results once, and forgotten there.
    const auto build = [&](const ProgramSource& source) {
      try {
        std::shared_ptr<Program> program = compiler.get(source);
        compiler.forget(source);
        return program;
      } catch (...) {
        compiler.forget(source);
        throw;
      }
    };
    ConfiguredKernel configured = configure(device, target.kernel, configuration, problem, build);
    Passes passes;
    passes.kernels.push_back(std::move(configured.kernel));
    passes.ranges.push_back(std::move(configured.range));
    for (const TunableKernel& pass : pass_kernels) {
      passes.kernels.push_back(configured.program->kernel(pass.kernel_name));
      passes.ranges.push_back(configured_launch(pass, configuration, problem));
    }
    return passes;
  }

  // Launches every pass once, in order, on the in-order queue.
  std::vector<std::shared_ptr<Event>> launch(const Passes& passes) {
    std::vector<std::shared_ptr<Event>> events;
    for (std::size_t p = 0; p < passes.kernels.size(); ++p) {
      events.push_back(queue->launch(*passes.kernels[p], passes.ranges[p], data.arguments(p)));
    }
    return events;
  }

  // A run's time: the sum of its passes' device times.
  static double seconds_of(const std::vector<std::shared_ptr<Event>>& events) {
    std::uint64_t nanoseconds = 0;
    for (const std::shared_ptr<Event>& event : events) nanoseconds += event->timing().duration_ns();
    return double(nanoseconds) * 1e-9;
  }

  // How long a first run may take, as the device times it: the fixed
  // timeout, or, once something ran, a multiple of the best so far widened
  // by the default's spread.
  double time_limit(std::optional<double> best_seconds) const {
    if (!best_seconds) return options.timeout_seconds;
    const double scaled = options.timeout_over_best * *best_seconds * (1.0 + noise.value_or(0.0));
    return std::min(options.timeout_seconds, std::max(options.min_timeout_seconds, scaled));
  }

  // Waits for `event` up to `limit_seconds`; false when it took longer. The run
  // cannot be stopped, so on timeout this still waits for it to end. It
  // polls, sleeping a little longer each time (at most 2 ms): a helper
  // thread per run could still be exiting when the program ends, which
  // LeakSanitizer's exit check does not survive.
  bool wait_within_timeout(const std::shared_ptr<Event>& event, double limit_seconds) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(limit_seconds));
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

  // Launches `runs` timed runs at once and returns their times. Buffers
  // marked for it are written again before each run; the events time the
  // kernels only.
  // `added` (the priced conversions) is added to each.
  std::vector<double> time_runs(const Passes& passes, std::size_t runs, double added) {
    std::vector<std::vector<std::shared_ptr<Event>>> events;
    for (std::size_t r = 0; r < runs; ++r) {
      data.write_resets(*queue);
      events.push_back(launch(passes));
    }
    std::vector<double> seconds;
    for (const auto& run_events : events) seconds.push_back(seconds_of(run_events) + added);
    return seconds;
  }

  // What the configuration's conversions add to each run's time.
  double priced_conversions(double conversion) const { return options.layouts_persist ? 0.0 : conversion; }

  Measurement run(const Configuration& configuration, bool capture_reference,
                  std::optional<double> best_seconds,
                  std::optional<std::chrono::steady_clock::time_point> timing_ends = std::nullopt);
};

Evaluator::Evaluator(Runtime& runtime, Device& device, const TuningTarget& target, Extent problem,
                     MeasureOptions options)
    : state_(std::make_unique<State>(runtime, device, target, problem, options)) {
  target.kernel.validate();
  if (options.min_repetitions < 1 || options.max_repetitions < options.min_repetitions ||
      !(options.timeout_seconds > 0) || !(options.hopeless_factor >= 1) || !(options.timeout_over_best >= 1) ||
      !(options.min_timeout_seconds > 0)) {
    throw InvalidArgument("tuning " + target.kernel.name +
                          ": measuring needs 1 <= min_repetitions <= max_repetitions, positive "
                          "timeout_seconds and min_timeout_seconds, and a hopeless_factor and "
                          "timeout_over_best of at least 1");
  }
  for (const TunableKernel& pass : state_->pass_kernels) pass.validate();
  const Harness& harness = target.harness;
  if (harness.reference) {
    std::vector<HostArray> expected;
    for (std::size_t i = 0; i < harness.buffers.size(); ++i) {
      if (harness.buffers[i].output) expected.emplace_back(harness.buffers[i].type, state_->data.canonical()[i].size());
    }
    harness.reference(problem, state_->data.canonical(), expected);
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
  if (auto why = invalid(configuration)) return failed(configuration, Outcome::invalid, *why);
  Passes passes;
  try {
    passes = compile(configuration);
  } catch (const CompileError& error) {
    return failed(configuration, Outcome::compile_error, first_lines(error.log().empty() ? error.what() : error.log()));
  } catch (const WorkGroupTooLarge& error) {
    return failed(configuration, Outcome::launch_refused, first_lines(error.what()));
  } catch (const Error& error) {
    return failed(configuration, Outcome::compile_error, first_lines(error.what()));
  }

  double conversion = 0;
  try {
    const alloy::detail::HandledErrorScope handled;
    conversion = conversions.seconds(configuration);
  } catch (const Error& error) {
    return failed(configuration, Outcome::launch_refused, "converting its layouts: " + first_lines(error.what()));
  }
  const double priced = priced_conversions(conversion);

  // First run: from fresh inputs, verified; it is also the warm-up.
  std::vector<HostArray> outputs;
  double first_seconds = 0;
  try {
    const alloy::detail::HandledErrorScope handled;
    data.write_all(*queue, configuration);
    const std::vector<std::shared_ptr<Event>> first = launch(passes);
    // The wall clock waits up to --timeout: a driver may compile the kernel
    // at its first launch (PoCL does, per work-group size: seconds for a
    // large unrolled tile), which is no part of the run's pace.
    if (!wait_within_timeout(first.back(), options.timeout_seconds)) {  // the queue runs them in order
      queue->finish();
      char why[160];
      std::snprintf(why, sizeof why, "one run took longer than %.3g s (--timeout)", options.timeout_seconds);
      return failed(configuration, Outcome::timeout, why);
    }
    for (const std::shared_ptr<Event>& event : first) event->wait();  // rethrows a pass's failure
    // The run itself, as the device timed it, against the limit scaled
    // from the best so far: over it, no timed runs follow.
    const double limit = time_limit(best_seconds);
    if (seconds_of(first) > limit) {
      char why[200];
      std::snprintf(why, sizeof why,
                    "one run took %.3g s, longer than %.3g s (the limit scaled from the best time so far)",
                    seconds_of(first), limit);
      return failed(configuration, Outcome::timeout, why);
    }
    first_seconds = seconds_of(first) + priced;
    outputs = data.read_outputs(*queue);
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
    measurement.conversion_seconds = conversion;
    measurement.detail = "timed once: one run takes longer than max_seconds";
    return measurement;
  }

  // Timed runs, in batches, until the spread is small or a cap is hit.
  std::vector<double> seconds;
  double total = 0;
  std::string detail;
  try {
    const alloy::detail::HandledErrorScope handled;
    // On a quiet device a check run and one timed run, both far slower
    // than the best, are a verdict: slow configurations are most of a
    // search's time.
    const bool hopeless_at_first = best_seconds && first_seconds > options.hopeless_factor * *best_seconds;
    const bool quiet = noise && *noise < options.quiet_spread;
    while (seconds.size() < options.max_repetitions) {
      const std::size_t batch =
          seconds.empty() && quiet && hopeless_at_first
              ? 1
              : std::min<std::size_t>(options.min_repetitions, options.max_repetitions - seconds.size());
      for (double run_seconds : time_runs(passes, batch, priced)) {
        seconds.push_back(run_seconds);
        total += run_seconds;
      }
      // Far slower than the best in every run so far, not just the first
      // (one slow run on a shared device is no verdict): more runs would
      // not change the ranking, and slow runs are most of a search's cost.
      const double fastest = *std::min_element(seconds.begin(), seconds.end());
      if (best_seconds && fastest > options.hopeless_factor * *best_seconds) {
        detail = seconds.size() == 1 ? "checked and timed once on a quiet device: both runs far slower than the best so far"
                                     : "timed " + std::to_string(seconds.size()) +
                                           " times: every run far slower than the best so far";
        break;
      }
      // A lone timed run has no spread to judge: it ends the timing only as
      // the verdict above. One slow run of a configuration that then proves
      // not hopeless would otherwise be its time, and a zero-width interval
      // would keep it out of the confirmation.
      const bool steady = seconds.size() >= options.min_repetitions &&
                          relative_spread(seconds) <= options.target_spread;
      if (steady || total >= options.max_seconds) break;
      if (timing_ends && std::chrono::steady_clock::now() >= *timing_ends) break;
    }
  } catch (const Error& error) {
    queue = device.create_queue();
    return failed(configuration, Outcome::launch_refused, first_lines(error.what()));
  }
  if (configuration == target.kernel.default_configuration() && seconds.size() >= options.min_repetitions) {
    noise = relative_spread(seconds);
  }
  const TimeSummary summary = summarize(seconds);
  Measurement measurement;
  measurement.configuration = configuration;
  measurement.seconds = summary.median;
  measurement.low = summary.low;
  measurement.high = summary.high;
  measurement.spread = relative_spread(seconds);
  measurement.repetitions = seconds.size();
  measurement.conversion_seconds = conversion;
  measurement.detail = std::move(detail);
  return measurement;
}

std::vector<std::string> Evaluator::staged_on_host(const Configuration& configuration) {
  try {
    const alloy::detail::HandledErrorScope handled;
    return state_->conversions.staged_on_host(configuration);
  } catch (const Error&) {
    return {};  // measure() reported it; the profile keeps the device's way
  }
}

std::optional<double> Evaluator::retime(const Configuration& configuration, std::size_t runs) {
  State& state = *state_;
  try {
    const alloy::detail::HandledErrorScope handled;
    Passes& passes = state.retimed[configuration];
    if (passes.kernels.empty()) passes = state.compile(configuration);
    state.data.lay_out(*state.queue, configuration);
    const double priced = state.priced_conversions(state.conversions.seconds(configuration));
    return summarize(state.time_runs(passes, std::max<std::size_t>(runs, 1), priced)).median;
  } catch (const Error&) {
    state.retimed.erase(configuration);
    state.queue = state.device.create_queue();
    return std::nullopt;
  }
}

}  // namespace alloy::autotune
