// Measures configurations of one tunable kernel on one device: compiles
// ahead on oneTBB workers, verifies each result, times repeated runs.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloy/autotune/harness.hpp"
#include "alloy/autotune/measurement.hpp"
#include "alloy/runtime.hpp"

namespace alloy::autotune {

struct MeasureOptions {
  unsigned min_repetitions = 3;
  unsigned max_repetitions = 20;
  /// Timed runs stop once their relative standard deviation is below this...
  double target_spread = 0.03;
  /// ...or once they add up to this many seconds. A first run this long is
  /// the time on its own.
  double max_seconds = 2.0;
  /// A configuration whose first run takes longer on the wall clock (a
  /// compile at first launch included) is a timeout. The run cannot be
  /// cancelled on the device: the evaluator waits for it to end.
  double timeout_seconds = 10.0;
  /// Once a configuration has run correctly, a first run whose own time, as
  /// the device measured it, is over this many times the best time so far,
  /// widened by the default's measured spread (a busy device slows every
  /// run), and at least min_timeout_seconds, is a timeout too. A
  /// configuration that slow is not timed again, and the search's step
  /// estimate is not set by its runs.
  double timeout_over_best = 20.0;
  double min_timeout_seconds = 0.2;
  /// A configuration whose every timed run so far (a batch of
  /// min_repetitions) is this many times slower than the best so far is not
  /// timed further. Far from the best, a precise time changes nothing, and
  /// slow runs are most of a search's cost; but one slow run, which a shared
  /// device gives any configuration now and then, is no verdict.
  double hopeless_factor = 2.0;
  /// A device is quiet when the default configuration's timed runs spread
  /// less than this. There, a configuration whose check run and first
  /// timed run are both hopeless_factor times slower than the best is not
  /// timed further; on a noisier device, or before the default has been
  /// timed, a whole batch must be.
  double quiet_spread = 0.05;
  /// For kernels with layout arguments (records or matrices the host
  /// describes): false prices, into each configuration's time, converting
  /// them from the host's layout and back with the executor's own
  /// conversion kernels, as a program that keeps its data on the host pays
  /// per task; true says the layouts persist across many launches, so the
  /// conversions are amortized and not priced (Measurement says both).
  bool layouts_persist = false;
};

/// Runs a TuningTarget for one problem on one device. Each measure(): the
/// configuration is checked against the space (invalid), compiled (compile
/// error), run once from freshly written inputs and its outputs compared with
/// the reference (launch refused, wrong result, timeout; this run is also the
/// warm-up), then timed by device events in batches until the spread is
/// small or a cap is hit; the median is the time, with its confidence
/// interval. Outputs compare per their OutputCheck. The reference is the
/// target's host function, else the outputs of the kernel's default
/// configuration, computed on the first measure(). A run is the tuned kernel
/// and then the harness's passes; its time is theirs together. Buffers with
/// a layout are written in the configuration's order, and their outputs put
/// back in canonical order before they are compared.
///
/// compile_ahead() hands compiles to oneTBB workers; measure() of that
/// configuration then waits for its compile only. Used by one thread.
class Evaluator {
 public:
  /// Allocates the harness's buffers on `device` and writes their contents.
  Evaluator(Runtime& runtime, Device& device, const TuningTarget& target, Extent problem,
            MeasureOptions options = {});
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  void compile_ahead(const Configuration& configuration);
  /// Blocks until every compile started by compile_ahead() has ended.
  void wait_for_compiles();
  /// `best_seconds`: the best time so far, for hopeless_factor.
  /// `timing_ends`: no batch of timed runs starts after it (a budget's end),
  /// though the first batch always runs.
  Measurement measure(const Configuration& configuration,
                      std::optional<double> best_seconds = std::nullopt,
                      std::optional<std::chrono::steady_clock::time_point> timing_ends = std::nullopt);
  /// The median of `runs` more timed runs of a configuration measure() found
  /// ok, without writing inputs or verifying; nothing when a run fails. Its
  /// compiled kernel is kept for the next call: for confirmation rounds.
  std::optional<double> retime(const Configuration& configuration, std::size_t runs);
  /// The layout arguments the configuration converts into its layouts
  /// faster on the host, while staging the upload, than on the device
  /// (ProfileEntry::staged_on_host); empty when a conversion fails to run.
  std::vector<std::string> staged_on_host(const Configuration& configuration);

  Device& device() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace alloy::autotune
