// The `autotune` progress line: bar, ETA, best so far (internal).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "alloy/autotune/tuner.hpp"

namespace alloy::autotune::command {

/// Writes progress to `out` (stderr): one line redrawn in place on a
/// terminal, else a line every 10 s so logs of CI runs stay short.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(std::FILE* out = stderr);

  /// Starts a tuning task's line: "[2/6] alloy.gemm 1024x1024x1024 on opencl:0 ...".
  void begin(const std::string& title);
  void update(const TuningProgress& progress);
  void end();

 private:
  std::FILE* out_;
  bool terminal_;
  std::string title_;
  std::chrono::steady_clock::time_point last_line_;
  bool drawn_ = false;
};

/// "3.21 ms", "812 us", "1.50 s".
std::string format_seconds(double seconds);

}  // namespace alloy::autotune::command
