// Median-of-recent-samples estimates with outlier rejection.
#include "alloy/performance_model.hpp"

#include <algorithm>
#include <cmath>

namespace alloy {

bool PerformanceModel::Samples::add(double value) {
  if (!(value >= 0) || !std::isfinite(value)) return false;
  if (recent.size() >= min_samples && value > outlier_factor * median()) return false;
  recent.push_back(value);
  if (recent.size() > window) recent.pop_front();
  std::vector<double> sorted(recent.begin(), recent.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  median_ = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return true;
}

bool PerformanceModel::record_kernel(std::uint64_t kernel_key, std::size_t device,
                                     std::size_t work_items, double seconds) {
  std::lock_guard lock(mutex_);
  const bool kept = kernels_[{kernel_key, device, work_items}].add(seconds);
  if (!kept) ++rejected_;
  return kept;
}

std::optional<double> PerformanceModel::kernel_seconds(std::uint64_t kernel_key, std::size_t device,
                                                       std::size_t work_items) const {
  std::lock_guard lock(mutex_);
  const auto exact = kernels_.find({kernel_key, device, work_items});
  if (exact != kernels_.end() && !exact->second.recent.empty()) return exact->second.median();
  // The nearest measured size on a log scale, scaled by the size ratio.
  std::optional<double> best;
  double best_distance = 0;
  for (auto it = kernels_.lower_bound({kernel_key, device, 0});
       it != kernels_.end() && std::get<0>(it->first) == kernel_key &&
       std::get<1>(it->first) == device;
       ++it) {
    const std::size_t size = std::get<2>(it->first);
    if (it->second.recent.empty() || size == 0 || work_items == 0) continue;
    const double distance = std::abs(std::log(static_cast<double>(size) / work_items));
    if (!best || distance < best_distance) {
      best_distance = distance;
      best = it->second.median() * static_cast<double>(work_items) / static_cast<double>(size);
    }
  }
  return best;
}

std::size_t PerformanceModel::kernel_samples(std::uint64_t kernel_key, std::size_t device,
                                             std::size_t work_items) const {
  std::lock_guard lock(mutex_);
  const auto found = kernels_.find({kernel_key, device, work_items});
  return found == kernels_.end() ? 0 : found->second.recent.size();
}

std::size_t PerformanceModel::rejected() const {
  std::lock_guard lock(mutex_);
  return rejected_;
}

bool PerformanceModel::record_transfer(std::size_t device, std::size_t bytes, double seconds) {
  if (bytes == 0 || !(seconds > 0)) return false;
  std::lock_guard lock(mutex_);
  // Outliers here are slow transfers: low bandwidth. Record the time per byte
  // so that "far above the median" means "far slower".
  const bool kept = seconds_per_byte_[device].add(seconds / static_cast<double>(bytes));
  if (!kept) ++rejected_;
  return kept;
}

double PerformanceModel::bytes_per_second(std::size_t device) const {
  std::lock_guard lock(mutex_);
  const auto found = seconds_per_byte_.find(device);
  if (found == seconds_per_byte_.end() || found->second.recent.empty()) return default_bytes_per_second;
  const double seconds_per_byte = found->second.median();
  return seconds_per_byte > 0 ? 1 / seconds_per_byte : default_bytes_per_second;
}

}  // namespace alloy
