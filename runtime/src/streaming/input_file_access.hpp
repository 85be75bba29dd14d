// What the runtime's own users of an InputFile see beyond its public calls:
// when its reads ran (internal to the runtime).
#pragma once

#include <chrono>
#include <functional>

#include "alloy/input_file.hpp"

namespace alloy::detail {

struct InputFileAccess {
  using Clock = std::chrono::steady_clock;
  /// Told of every read of `file` from now on, host or direct, with when it
  /// started and ended, on the reading thread: how a pipeline counts the
  /// time host threads spend reading its files. Set it before reads start.
  static void observe_reads(InputFile& file, std::function<void(Clock::time_point, Clock::time_point)> observer);
};

}  // namespace alloy::detail
