// The `autotune` result table and its JSON form (internal).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "alloy/autotune/tuner.hpp"

namespace alloy::autotune::command {

/// One tuning task as the report shows it.
struct ReportRow {
  TuningResult result;
  std::string configuration;  ///< the best, described; empty when none
  std::string profile_file;   ///< where it was recorded; empty when not
  std::string error;          ///< why the task could not run at all
};

/// Kernel, problem, device, default and tuned time, speed-up, evaluations,
/// failures by kind, what stopped the search, the configuration.
std::string format_table(const std::vector<ReportRow>& rows);
std::string format_json(const std::vector<ReportRow>& rows);

}  // namespace alloy::autotune::command
