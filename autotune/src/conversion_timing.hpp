// What converting a configuration's layout arguments costs on the device
// (internal to the evaluator): the executor's own conversion kernels, timed.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "alloy/runtime.hpp"
#include "harness_data.hpp"

namespace alloy::autotune::detail {

class ConversionTiming {
 public:
  ConversionTiming(Runtime& runtime, Device& device, const TuningTarget& target, const HarnessData& data)
      : runtime_(runtime), device_(device), target_(target), data_(data) {}

  /// Seconds per run: every layout argument converted from the host's
  /// layout into the configuration's (but outputs the kernel only
  /// overwrites), and the outputs back; 0 where the host's layout is the
  /// one wanted. Each conversion is timed once per layout, by device
  /// events, the fastest of three runs. Compile and launch errors are
  /// thrown.
  double seconds(const Configuration& configuration);

 private:
  double time(std::size_t buffer, const BufferArrangement& arrangement);

  Runtime& runtime_;
  Device& device_;
  const TuningTarget& target_;
  const HarnessData& data_;
  std::unique_ptr<Queue> queue_;
  std::map<std::pair<std::size_t, std::string>, double> timed_;  ///< by buffer and arrangement
};

}  // namespace alloy::autotune::detail
