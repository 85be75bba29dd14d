// Measured kernel times and transfer bandwidth per device: what the
// earliest-finish-time policy predicts from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

namespace alloy {

/// Thread-safe history of measurements, keyed by kernel (Graph::kernel_key),
/// device (index into the executor's devices) and problem size (work-items).
/// An estimate is the median of the most recent samples, and a sample far
/// above the current median is rejected, so one spike (a page fault, a
/// preempted thread) cannot poison the model.
class PerformanceModel {
 public:
  /// Samples kept per key; older ones are forgotten so the model follows drift.
  static constexpr std::size_t window = 16;
  /// A sample above this many times the median of at least `min_samples`
  /// earlier ones is an outlier.
  static constexpr double outlier_factor = 8.0;
  static constexpr std::size_t min_samples = 3;
  /// Assumed until a transfer to the device has been measured (PCIe 3 x16-class).
  static constexpr double default_bytes_per_second = 8e9;

  /// Returns false when the sample was rejected as an outlier.
  bool record_kernel(std::uint64_t kernel_key, std::size_t device, std::size_t work_items,
                     double seconds);
  /// Median seconds for this kernel on this device at this size; a size not
  /// measured there is scaled linearly from the nearest measured one.
  std::optional<double> kernel_seconds(std::uint64_t kernel_key, std::size_t device,
                                       std::size_t work_items) const;
  /// Samples recorded (not rejected) for this exact key.
  std::size_t kernel_samples(std::uint64_t kernel_key, std::size_t device,
                             std::size_t work_items) const;
  std::size_t rejected() const;

  bool record_transfer(std::size_t device, std::size_t bytes, double seconds);
  /// Median measured host-to-device bandwidth, else the default.
  double bytes_per_second(std::size_t device) const;

 private:
  struct Samples {
    std::deque<double> recent;
    bool add(double value);  ///< false: rejected
    /// Of `recent`, kept as samples come: estimates are asked for far more
    /// often (a traced task's prediction, each placement by time).
    double median() const { return median_; }

   private:
    double median_ = 0;
  };
  using KernelKey = std::tuple<std::uint64_t, std::size_t, std::size_t>;

  mutable std::mutex mutex_;
  std::map<KernelKey, Samples> kernels_;
  std::map<std::size_t, Samples> seconds_per_byte_;  // transfer time per byte, per device
  std::size_t rejected_ = 0;
};

}  // namespace alloy
