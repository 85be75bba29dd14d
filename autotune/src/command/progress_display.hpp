// The `autotune` progress line: bar, ETA, best so far (internal).
#pragma once

#include <chrono>
#include <string>

#include "alloy/autotune/tuner.hpp"

namespace alloy::autotune::command {

/// Writes progress to stderr: one line redrawn in place on a terminal, else a
/// line every 10 s so logs of CI runs stay short.
class ProgressDisplay {
 public:
  ProgressDisplay();

  /// Starts a tuning task's line: "[2/6] alloy.gemm 1024x1024x1024 on opencl:0 ...".
  void begin(const std::string& title);
  void update(const TuningProgress& progress);
  void end();

 private:
  bool terminal_;
  std::string title_;
  std::chrono::steady_clock::time_point last_line_;
  bool drawn_ = false;
};

/// "3.21 ms", "812 us", "1.50 s".
std::string format_seconds(double seconds);

}  // namespace alloy::autotune::command
