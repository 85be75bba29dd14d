// One configuration at a time: check, compile, verify, time.
#include "alloy/autotune/evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <thread>
#include <numeric>
#include <random>
#include <sstream>

#include "alloy/error.hpp"
#include "compile_ahead.hpp"

namespace alloy::autotune {
namespace {

std::vector<float> initial_contents(const HarnessBuffer& buffer, std::size_t count, std::size_t index) {
  std::vector<float> values(count, 0.0f);
  // Seeded per buffer: every evaluator, in every run, sees the same inputs.
  std::mt19937 random(static_cast<unsigned>(0x5eed + index));
  if (buffer.fill == HarnessBuffer::Fill::random) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& value : values) value = uniform(random);
  } else if (buffer.fill == HarnessBuffer::Fill::bits) {
    for (float& value : values) value = float(random() & 1u);
  }
  return values;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double relative_spread(const std::vector<double>& values) {
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return mean > 0 ? std::sqrt(squares / double(values.size())) / mean : 0.0;
}

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

struct Evaluator::State {
  Runtime& runtime;
  Device& device;
  const TuningTarget& target;
  Extent problem;
  MeasureOptions options;
  DeviceLimits limits;
  std::unique_ptr<Queue> queue;
  std::vector<std::vector<float>> contents;  // every buffer's initial contents
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::vector<KernelArg> args;
  std::optional<std::vector<std::vector<float>>> reference;  // per output buffer
  detail::CompileAhead compiler;

  State(Runtime& r, Device& d, const TuningTarget& t, Extent p, MeasureOptions o)
      : runtime(r), device(d), target(t), problem(p), options(o),
        limits(DeviceLimits::of(d.info())), queue(d.create_queue()), compiler(d) {}

  void write_inputs() {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      queue->write(*buffers[i], 0, contents[i].data(), contents[i].size() * sizeof(float));
    }
  }

  std::vector<std::vector<float>> read_outputs() {
    std::vector<std::vector<float>> outputs;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      if (!target.harness.buffers[i].output) continue;
      outputs.emplace_back(contents[i].size());
      queue->read(*buffers[i], 0, outputs.back().data(), outputs.back().size() * sizeof(float));
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
  std::optional<std::string> compare(const std::vector<std::vector<float>>& outputs) const {
    const double tolerance = target.harness.tolerance;
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const std::vector<float>& expected = (*reference)[o];
      for (std::size_t i = 0; i < expected.size(); ++i) {
        const double difference = std::fabs(double(outputs[o][i]) - double(expected[i]));
        // Written so that NaN fails too.
        if (!(difference <= tolerance * (1.0 + std::fabs(double(expected[i]))))) {
          std::ostringstream text;
          text << "output " << o << " element " << i << " is " << outputs[o][i] << ", expected "
               << expected[i];
          return text.str();
        }
      }
    }
    return std::nullopt;
  }

  Measurement run(const Configuration& configuration, bool capture_reference,
                  std::optional<double> best_seconds);
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
  for (std::size_t i = 0; i < harness.buffers.size(); ++i) {
    const std::int64_t count = evaluate(target.kernel, harness.buffers[i].elements, {}, problem);
    if (count <= 0) {
      throw InvalidArgument("tuning " + target.kernel.name + ": buffer '" + harness.buffers[i].name +
                            "' has no elements for problem " + problem.to_string());
    }
    state_->contents.push_back(initial_contents(harness.buffers[i], std::size_t(count), i));
    state_->buffers.push_back(device.allocate(std::size_t(count) * sizeof(float)));
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
        state_->args.push_back(KernelArg::from(static_cast<int>(problem[unsigned(argument.index) % 3])));
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
    std::vector<std::vector<float>> expected;
    for (std::size_t i = 0; i < harness.buffers.size(); ++i) {
      if (harness.buffers[i].output) expected.emplace_back(state_->contents[i].size());
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

Measurement Evaluator::measure(const Configuration& configuration, std::optional<double> best_seconds) {
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
  return state_->run(configuration, false, best_seconds);
}

Measurement Evaluator::State::run(const Configuration& configuration, bool capture_reference,
                                  std::optional<double> best_seconds) {
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
  std::vector<std::vector<float>> outputs;
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

  // One run is the time when more would not tell more: far slower than the
  // best, or long enough on its own that its noise is small.
  const bool hopeless = best_seconds && first_seconds > options.hopeless_factor * *best_seconds;
  if (hopeless || first_seconds >= options.max_seconds) {
    Measurement measurement;
    measurement.configuration = configuration;
    measurement.seconds = first_seconds;
    measurement.repetitions = 1;
    measurement.detail = hopeless ? "timed once: far slower than the best so far"
                                  : "timed once: one run takes longer than max_seconds";
    return measurement;
  }

  // Timed runs, in batches, until the spread is small or a cap is hit.
  std::vector<double> seconds;
  double total = 0;
  try {
    const alloy::detail::HandledErrorScope handled;
    while (seconds.size() < options.max_repetitions) {
      const std::size_t batch = std::min<std::size_t>(options.min_repetitions,
                                                      options.max_repetitions - seconds.size());
      std::vector<std::shared_ptr<Event>> events;
      for (std::size_t r = 0; r < batch; ++r) {
        events.push_back(queue->launch(*compiled, range, std::span<const KernelArg>(args)));
      }
      for (const std::shared_ptr<Event>& event : events) {
        const double run_seconds = double(event->timing().duration_ns()) * 1e-9;
        seconds.push_back(run_seconds);
        total += run_seconds;
      }
      if (relative_spread(seconds) <= options.target_spread || total >= options.max_seconds) break;
    }
  } catch (const Error& error) {
    queue = device.create_queue();
    return failed(configuration, Outcome::launch_refused, first_lines(error.what()));
  }
  Measurement measurement;
  measurement.configuration = configuration;
  measurement.seconds = median(seconds);
  measurement.spread = relative_spread(seconds);
  measurement.repetitions = seconds.size();
  return measurement;
}

}  // namespace alloy::autotune
