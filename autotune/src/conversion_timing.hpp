// What converting a configuration's layout arguments costs (internal to the
// evaluator): the executor's own conversions, on the device and on the host
// while staging, timed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

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
  /// one wanted. A conversion in takes the faster way (staged_on_host).
  /// Each conversion is timed once per layout, the fastest of three runs.
  /// Compile and launch errors are thrown.
  double seconds(const Configuration& configuration);
  /// The layout arguments, by name, that convert into the configuration's
  /// layouts faster on the host while staging their upload (the packed
  /// bytes uploaded) than on the device (the host's bytes uploaded, then
  /// the conversion kernel). Only arguments the kernel reads and does not
  /// write qualify: the executor converts written ones on the device.
  std::vector<std::string> staged_on_host(const Configuration& configuration);

 private:
  /// One buffer's conversions in one arrangement, in seconds.
  struct Timed {
    double into_layout = 0;  ///< beyond uploading the host's bytes, the faster way
    double back = 0;         ///< for outputs
    bool staged = false;     ///< into_layout is the host's way
  };
  const Timed& timed(std::size_t buffer, const Configuration& configuration);
  Timed time(std::size_t buffer, const BufferArrangement& arrangement);

  Runtime& runtime_;
  Device& device_;
  const TuningTarget& target_;
  const HarnessData& data_;
  std::unique_ptr<Queue> queue_;
  std::map<std::pair<std::size_t, std::string>, Timed> timed_;  ///< by buffer and arrangement
};

}  // namespace alloy::autotune::detail
