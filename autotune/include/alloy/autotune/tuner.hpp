// One tuning task: a kernel, a problem and a device, searched under a
// budget, every measurement logged, the best written to the device's profile.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alloy/autotune/confirmation.hpp"
#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/harness.hpp"
#include "alloy/autotune/results_log.hpp"
#include "alloy/autotune/strategy.hpp"

namespace alloy::autotune {

/// How compiling overlaps measuring.
enum class CompileOverlap {
  /// Compile the next candidates on oneTBB workers while one is measured: for
  /// GPUs, whose timings the host's compiling does not disturb.
  during_measurement,
  /// Compile a batch of candidates in parallel, then measure them one by one
  /// with no compile running: for CPU devices, which share the host's cores.
  between_measurements,
  /// Compile each candidate just before measuring it, on the tuner's thread.
  off,
};

struct TuningProgress {
  const Measurement& last;
  std::size_t evaluations = 0;  ///< including those resumed from the log
  std::optional<double> best_seconds;
  std::optional<double> default_seconds;
  double elapsed_seconds = 0;
  double budget_fraction = 0;  ///< how much of the budget is spent, 0..1, for an ETA
};

struct TuneOptions {
  std::string strategy = "model";
  Budget budget;
  std::uint64_t seed = 1;
  MeasureOptions measure;
  /// Unset: between_measurements on CPU devices, else during_measurement.
  std::optional<CompileOverlap> overlap;
  /// After the search, the configurations whose time it could not separate
  /// from the best, and the default, are timed again in interleaved rounds
  /// (see confirm()); the confirmed medians are the best and default times.
  /// Neighbours in the ranking are often closer than a device drifts over
  /// minutes.
  ConfirmOptions confirm;
  /// The default is timed again after every this many measurements of the
  /// search (0: never): how far its time moves is the drift, which widens
  /// the set confirmed (a busy device slows some measurements and not
  /// others, minutes apart).
  std::size_t retime_default_every = 10;
  /// Candidates compiled ahead; 0: as many as oneTBB has workers.
  std::size_t compile_window = 0;
  std::function<void(const TuningProgress&)> on_progress;
  /// Measured right after the default, before the strategy proposes: the
  /// best configurations of other problem sizes, say, since a good
  /// configuration for 1024 is often good for 2048. Those outside this
  /// problem's space are skipped.
  std::vector<Configuration> starting_points;
  /// Set by another thread (a signal handler, say) to stop after the
  /// measurement under way; the result then holds the best so far.
  const std::atomic<bool>* stop = nullptr;
};

struct TuningResult {
  std::string kernel;
  Extent problem;
  std::string device;  ///< label
  std::size_t space_size = 0;
  std::optional<Configuration> best;  ///< nothing when no configuration ran correctly
  std::optional<double> best_seconds;
  /// The best configuration's conversions of its layout arguments (see
  /// MeasureOptions::layouts_persist), included in best_seconds unless the
  /// layouts persist; 0 for kernels without layout arguments.
  double best_conversion_seconds = 0;
  /// The best configuration's layout arguments converted on the host while
  /// staging (Evaluator::staged_on_host).
  std::vector<std::string> best_staged_on_host;
  bool layouts_persist = false;
  std::optional<double> default_seconds;
  std::size_t evaluations = 0;  ///< including resumed
  std::size_t resumed = 0;      ///< read from the results log
  std::map<Outcome, std::size_t> outcomes;
  /// What the first failure of each kind said (its log detail): why, for a
  /// task that found nothing.
  std::map<Outcome, std::string> first_failures;
  std::string stopped_by;  ///< the budget limit reached, "strategy done" or "interrupted"
  double wall_seconds = 0;  ///< everything: reference, search, compiles and confirmation
  /// Why wall_seconds is more than 10 % over a wall-time budget; empty when it is not.
  std::string overrun;
  unsigned confirmation_rounds = 0;
  /// Confirmed candidates not separated from the best, the best included: 1
  /// when it is faster than every other one.
  std::size_t tied = 1;
  /// Relative standard deviation of the default's confirmation rounds: how
  /// much the device's timings moved during the run (nothing unconfirmed).
  std::optional<double> noise;
  /// How far the default's time moved across the search, (slowest −
  /// fastest) ÷ median of its measurement and its re-timings
  /// (TuneOptions::retime_default_every); nothing before a re-timing.
  std::optional<double> drift;
  /// The share of the machine's CPU time that other processes used while
  /// this ran (others_share); nothing where /proc cannot be read.
  std::optional<double> host_others;
  /// The confirmation could not tell the best from some other candidate
  /// (ConfirmationOutcome::provisional), or the budget left it no round:
  /// the profile entry is written provisional.
  bool provisional = false;
  /// The candidates still in at the end besides the best, with their
  /// confirmed medians, fastest first: what a provisional pick was not
  /// told apart from.
  std::vector<std::pair<Configuration, double>> runners_up;
};

/// Tunes `target` for `problem` on `device`. Measurements already in `log`
/// for this kernel source, device and problem are not measured again: they
/// are fed to the strategy and count against the budget's evaluation, space
/// fraction and stall limits (the wall-time limit counts this call only), so
/// a resumed run stops after as many measurements as an uninterrupted one. The default configuration is
/// always measured (or resumed) first: it is the baseline for speed-ups.
TuningResult tune(Runtime& runtime, Device& device, const TuningTarget& target, Extent problem,
                  const TuneOptions& options, ResultsLog& log);

/// Adds `result` to `device`'s profile in folder `dir`, keeping the other
/// entries (a profile file that cannot be read is replaced, with a warning).
/// Returns the profile file. Does nothing without a best configuration.
std::filesystem::path record_in_profile(const std::filesystem::path& dir, const DeviceInfo& device,
                                        const TuningTarget& target, const TuningResult& result,
                                        const TuneOptions& options);

}  // namespace alloy::autotune
