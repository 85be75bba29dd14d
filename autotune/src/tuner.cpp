// The tuning loop: resume from the log, propose, compile ahead, measure, log.
#include "alloy/autotune/tuner.hpp"

#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "alloy/autotune/confirmation.hpp"
#include "alloy/autotune/host_load.hpp"
#include "alloy/autotune/statistics.hpp"
#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "alloy/profile.hpp"
#include "file_lock.hpp"

namespace alloy::autotune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

CompileOverlap overlap_for(const Device& device, const TuneOptions& options) {
  if (options.overlap) return *options.overlap;
  return device.info().type == DeviceType::cpu ? CompileOverlap::between_measurements
                                               : CompileOverlap::during_measurement;
}

// Times of neighbours in the ranking often differ by less than the drift of
// a device over minutes (a memory-bound kernel on a shared host, say), so
// the configurations the search could not separate from the best, and the
// default they are compared with, are timed again, taking turns, until they
// separate or the rounds run out (see confirm()). Every round is logged.
void confirm_best(Evaluator& evaluator, const TuneOptions& options, const Configuration& defaults,
                  const std::vector<Measurement>& measurements, std::optional<Clock::time_point> deadline,
                  const std::function<void(const Measurement&)>& log_round, TuningResult& result) {
  if (!options.confirm.enabled || !result.best_seconds) return;
  std::vector<ConfirmationCandidate> candidates =
      confirmation_candidates(measurements, defaults, options.confirm, result.drift.value_or(0.0));
  // A few runs per sample while runs are short, so one sample is not one
  // launch's jitter; long runs are steady enough on their own.
  const std::size_t runs = *result.best_seconds < 0.05 ? 3 : 1;
  auto time_once = [&](std::size_t candidate, unsigned round) {
    const std::optional<double> seconds = evaluator.retime(candidates[candidate].configuration, runs);
    Measurement sample;
    sample.configuration = candidates[candidate].configuration;
    sample.round = round;
    sample.repetitions = runs;
    if (seconds) {
      sample.seconds = sample.low = sample.high = *seconds;
    } else {
      sample.outcome = Outcome::launch_refused;
      sample.detail = "failed when timed again";
    }
    log_round(sample);
    return seconds;
  };
  auto out_of_time = [&] { return deadline && Clock::now() >= *deadline; };
  const ConfirmationOutcome outcome = confirm(candidates, options.confirm, time_once, out_of_time);
  result.confirmation_rounds = outcome.rounds;
  if (outcome.rounds == 0 || candidates[outcome.chosen].samples.empty()) {
    // Not one round: the search's single measurement of each stands.
    result.provisional = candidates.size() > 1;
    return;
  }
  const ConfirmationCandidate& chosen = candidates[outcome.chosen];
  result.best = chosen.configuration;
  result.best_seconds = summarize(chosen.samples).median;
  result.tied = outcome.tied;
  result.provisional = outcome.provisional;
  for (const ConfirmationCandidate& candidate : candidates) {
    if (&candidate == &chosen || candidate.dropped || candidate.samples.empty()) continue;
    result.runners_up.emplace_back(candidate.configuration, summarize(candidate.samples).median);
  }
  std::sort(result.runners_up.begin(), result.runners_up.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const ConfirmationCandidate& candidate : candidates) {
    if (!candidate.is_default || candidate.samples.empty()) continue;
    result.default_seconds = summarize(candidate.samples).median;
    result.noise = relative_spread(candidate.samples);
  }
}

}  // namespace

TuningResult tune(Runtime& runtime, Device& device, const TuningTarget& target, Extent problem,
                  const TuneOptions& options, ResultsLog& log) {
  const Clock::time_point start = Clock::now();
  const std::optional<CpuTimes> cpu_at_start = read_cpu_times();
  const SearchSpace space(target.kernel, problem, DeviceLimits::of(device.info()));
  // The wall time counts everything from here: the host reference, compiles
  // and the confirmation, for which the search leaves a share.
  Budget search_budget = options.budget;
  std::optional<Clock::time_point> deadline;
  if (options.budget.wall_time) {
    deadline = start + std::chrono::duration_cast<Clock::duration>(*options.budget.wall_time);
    if (options.confirm.enabled) *search_budget.wall_time *= 1.0 - options.confirm.budget_share;
  }
  BudgetTracker tracker(search_budget, space.size());
  std::optional<Clock::time_point> search_deadline;
  if (search_budget.wall_time) {
    search_deadline = start + std::chrono::duration_cast<Clock::duration>(*search_budget.wall_time);
  }
  std::unique_ptr<Strategy> strategy = make_strategy(options.strategy, space, options.seed);
  Evaluator evaluator(runtime, device, target, problem, options.measure);
  // Times with conversions amortized are not those with them priced: the
  // log keeps them apart.
  const bool layout_arguments = !target.kernel.records.empty() || !target.kernel.matrices.empty();
  const std::string log_hash =
      target.kernel.source_hash() + (layout_arguments && options.measure.layouts_persist ? "+layouts_persist" : "");
  const LogKey key{target.kernel.name, log_hash, device.info().fingerprint(), problem};

  TuningResult result;
  result.kernel = target.kernel.name;
  result.problem = problem;
  result.device = device.label();
  result.space_size = space.size();
  result.layouts_persist = options.measure.layouts_persist;
  std::set<Configuration> evaluated;
  std::map<Configuration, double> conversions;  // of every configuration that ran

  std::vector<Measurement> ok_measurements;
  auto take = [&](const Measurement& measurement, std::optional<std::size_t> point) {
    evaluated.insert(measurement.configuration);
    if (measurement.outcome == Outcome::ok) {
      ok_measurements.push_back(measurement);
      conversions[measurement.configuration] = measurement.conversion_seconds;
    }
    ++result.evaluations;
    ++result.outcomes[measurement.outcome];
    if (measurement.outcome != Outcome::ok) result.first_failures.emplace(measurement.outcome, measurement.detail);
    if (measurement.resumed) ++result.resumed;
    if (point) strategy->observe(*point, measurement.time());
    tracker.record(measurement.time());
    if (measurement.outcome == Outcome::ok &&
        (!result.best_seconds || measurement.seconds < *result.best_seconds)) {
      result.best = measurement.configuration;
      result.best_seconds = measurement.seconds;
    }
    if (measurement.configuration == target.kernel.default_configuration() &&
        measurement.outcome == Outcome::ok) {
      result.default_seconds = measurement.seconds;
    }
    if (options.on_progress) {
      const double elapsed = seconds_since(start);
      options.on_progress({measurement, result.evaluations, result.best_seconds,
                           result.default_seconds, elapsed, tracker.fraction_spent()});
    }
  };
  auto measure_and_log = [&](const Configuration& configuration, std::optional<std::size_t> point) {
    const Measurement measurement = evaluator.measure(configuration, result.best_seconds, search_deadline);
    log.append(key, target.kernel, measurement);
    take(measurement, point);
    return measurement.outcome;
  };

  for (const Measurement& measurement : log.measurements(key, target.kernel)) {
    // Logged twice, or outside this space (its value lists have changed
    // since, or a narrower space shares the log): not part of this search.
    const std::optional<std::size_t> point = space.find(measurement.configuration);
    if (evaluated.count(measurement.configuration) != 0 || !point) continue;
    take(measurement, point);
  }
  const Configuration defaults = target.kernel.default_configuration();
  if (evaluated.count(defaults) == 0) measure_and_log(defaults, space.find(defaults));
  std::vector<Configuration> starting_points = options.starting_points;
  starting_points.insert(starting_points.end(), target.starting_points.begin(), target.starting_points.end());
  for (const Configuration& starting_point : starting_points) {
    const std::optional<std::size_t> point = space.find(starting_point);
    if (point && evaluated.count(starting_point) == 0) measure_and_log(starting_point, point);
  }

  const CompileOverlap overlap = overlap_for(device, options);
  const std::size_t window =
      overlap == CompileOverlap::off
          ? 1
          : (options.compile_window > 0
                 ? options.compile_window
                 : std::max<std::size_t>(1, tbb::global_control::active_value(
                                                tbb::global_control::max_allowed_parallelism)));
  std::deque<std::size_t> pending;
  auto stop_requested = [&] { return options.stop != nullptr && options.stop->load(); };
  // Proposals wait in `pending` while they compile; they count against the
  // budget only once measured, so a budget can stop with some unmeasured.
  auto top_up = [&] {
    while (pending.size() < window) {
      const std::optional<std::size_t> point = strategy->propose();
      if (!point) return;
      if (evaluated.count(space.configuration(*point)) != 0) continue;
      pending.push_back(*point);
      if (overlap != CompileOverlap::off) evaluator.compile_ahead(space.configuration(*point));
    }
  };

  // The default's times across the search: how far the device drifts.
  std::vector<double> default_times;
  if (result.default_seconds) default_times.push_back(*result.default_seconds);
  std::size_t since_retime = 0;
  auto retime_default = [&] {
    if (default_times.empty()) return;  // the default did not run correctly
    // A few runs per sample while runs are short, as the confirmation takes.
    const std::optional<double> seconds = evaluator.retime(defaults, default_times.front() < 0.05 ? 3 : 1);
    if (!seconds) return;
    default_times.push_back(*seconds);
    const auto [fastest, slowest] = std::minmax_element(default_times.begin(), default_times.end());
    result.drift = (*slowest - *fastest) / summarize(default_times).median;
  };

  // Budgets are checked between steps (compiling and measuring a
  // candidate), and neither a compile nor a run can be cut short: the search
  // does not start a step that its longest one so far says would not fit.
  double longest_step = 0;
  while (true) {
    if (auto reason = tracker.exhausted()) {
      result.stopped_by = *reason;
      break;
    }
    if (search_deadline && Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(longest_step)) >
                               *search_deadline) {
      result.stopped_by = "wall time";
      break;
    }
    const Clock::time_point step_start = Clock::now();
    if (stop_requested()) {
      result.stopped_by = "interrupted";
      break;
    }
    if (overlap == CompileOverlap::during_measurement || pending.empty()) {
      top_up();
      if (overlap == CompileOverlap::between_measurements) evaluator.wait_for_compiles();
    }
    if (pending.empty()) {
      result.stopped_by = "strategy done";
      break;
    }
    const std::size_t point = pending.front();
    pending.pop_front();
    const Outcome outcome = measure_and_log(space.configuration(point), point);
    if (options.retime_default_every > 0 && ++since_retime >= options.retime_default_every) {
      since_retime = 0;
      retime_default();
    }
    // A step cut by the time limit says nothing of the next one's length.
    if (outcome != Outcome::timeout) longest_step = std::max(longest_step, seconds_since(step_start));
  }
  evaluator.wait_for_compiles();
  if (result.stopped_by != "interrupted") {
    auto log_round = [&](const Measurement& sample) { log.append(key, target.kernel, sample); };
    confirm_best(evaluator, options, defaults, ok_measurements, deadline, log_round, result);
  }
  if (result.best) {
    const auto conversion = conversions.find(*result.best);
    if (conversion != conversions.end()) result.best_conversion_seconds = conversion->second;
    result.best_staged_on_host = evaluator.staged_on_host(*result.best);
  }
  result.wall_seconds = seconds_since(start);
  if (const std::optional<CpuTimes> cpu_at_end = read_cpu_times(); cpu_at_start && cpu_at_end) {
    result.host_others = others_share(*cpu_at_start, *cpu_at_end);
  }
  if (options.budget.wall_time && result.wall_seconds > 1.1 * options.budget.wall_time->count()) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "over the %.3g s budget: the budget is checked between steps, and the longest "
                  "search step took %.3g s",
                  options.budget.wall_time->count(), longest_step);
    result.overrun = text;
  }
  return result;
}

std::filesystem::path record_in_profile(const std::filesystem::path& dir, const DeviceInfo& device,
                                        const TuningTarget& target, const TuningResult& result,
                                        const TuneOptions& options) {
  if (!result.best || !result.best_seconds) return {};
  const std::filesystem::path file = ProfileStore::file_for(dir, device);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  // Read, merge, write under a lock on the folder: two tuners finishing at
  // once must not drop each other's entries.
  const detail::FileLock lock(dir.string());
  DeviceProfile profile = DeviceProfile::for_device(device);
  if (std::ifstream in{file, std::ios::binary}) {
    std::stringstream text;
    text << in.rdbuf();
    ProfileParse parsed = parse_profile(text.str());
    if (parsed.profile && parsed.profile->fingerprint == profile.fingerprint) {
      profile.entries = std::move(parsed.profile->entries);
    } else {
      log_warning("profile " + file.string() + " could not be read (" +
                  (parsed.profile ? std::string("made for another device") : parsed.error) +
                  "); writing a new one");
    }
  }
  const auto by_name = [&](const Configuration& configuration) {
    std::map<std::string, std::int64_t> named;
    for (std::size_t p = 0; p < target.kernel.parameters.size(); ++p) {
      named[target.kernel.parameters[p].name] = configuration[p];
    }
    return named;
  };
  ProfileEntry entry;
  entry.kernel = target.kernel.name;
  entry.source_hash = target.kernel.source_hash();
  entry.problem = result.problem;
  entry.configuration = by_name(*result.best);
  entry.seconds = *result.best_seconds;
  entry.default_seconds = result.default_seconds.value_or(0.0);
  entry.noise = result.noise.value_or(0.0);
  entry.samples = result.confirmation_rounds;  // 0 without confirmation rounds: unknown
  entry.provisional = result.provisional;
  for (const auto& [configuration, seconds] : result.runners_up) {
    entry.runners_up.push_back({by_name(configuration), seconds});
  }
  entry.conversion_seconds = result.best_conversion_seconds;
  entry.layouts_persist = result.layouts_persist;
  entry.staged_on_host = result.best_staged_on_host;
  entry.strategy = options.strategy;
  entry.evaluations = result.evaluations;
  entry.space_size = result.space_size;
  entry.tuning_seconds = result.wall_seconds;
  profile.put(std::move(entry));
  write_profile(file, profile);
  return file;
}

}  // namespace alloy::autotune
