// What measuring one configuration found: a time, or why it failed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "alloy/tunable_kernel.hpp"

namespace alloy::autotune {

/// How an evaluation ended. Every failure is a result to log and count, never
/// a reason for the tuner to stop.
enum class Outcome {
  ok,
  invalid,         ///< outside the space: breaks a constraint or a device limit
  compile_error,   ///< the compiler rejected it
  launch_refused,  ///< the driver refused to run it (resources, work-group size)
  wrong_result,    ///< ran, but its output differs from the reference
  timeout,         ///< one run took longer than the limit
};

std::string_view to_string(Outcome outcome);
/// Nothing for text that names no outcome.
std::optional<Outcome> outcome_from_string(std::string_view text);

struct Measurement {
  Configuration configuration;
  Outcome outcome = Outcome::ok;
  double seconds = 0;          ///< median time of the timed runs, when ok: the kernel's, plus
                               ///< conversion_seconds unless the layouts persist
  /// Converting the layout arguments into the configuration's layouts and
  /// back, as the executor does for each task (MeasureOptions::layouts_persist).
  double conversion_seconds = 0;
  double low = 0;              ///< the median's confidence interval (see summarize())
  double high = 0;
  double spread = 0;           ///< relative standard deviation of those runs
  std::size_t repetitions = 0; ///< timed runs
  /// 0: measured by the search; from 1: the confirmation round that re-timed it.
  unsigned round = 0;
  std::string detail;          ///< why, for failures: the compiler's first line, the wrong element
  bool resumed = false;        ///< read from the results log, not measured in this run

  /// The time a strategy sees: nothing for failures.
  std::optional<double> time() const {
    return outcome == Outcome::ok ? std::optional<double>(seconds) : std::nullopt;
  }
};

}  // namespace alloy::autotune
