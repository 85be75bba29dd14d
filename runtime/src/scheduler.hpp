// Picks the device for each device task (internal to the runtime).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "alloy/executor.hpp"
#include "alloy/performance_model.hpp"

namespace alloy::detail {

/// What the scheduler knows of one device when placing a task.
struct DeviceLoad {
  std::size_t in_flight = 0;     ///< commands submitted, not yet seen complete
  std::size_t missing_bytes = 0;  ///< of the task's inputs, not valid on the device
};

/// Applies the executor's policy. Earliest finish time, as in HEFT: the
/// device where the task is predicted to end first, counting when the device
/// will be free (its queued work's estimates), the transfers of inputs it
/// lacks, and the kernel's measured time there. A device without a
/// measurement of the kernel is assumed to be as fast as the average of those
/// with one; while no device has one, the least loaded takes the task. In
/// deterministic mode the clock and the
/// in-flight counts are not consulted, so placement follows from the
/// submissions and the model alone.
class Scheduler {
 public:
  Scheduler(const ExecutorOptions& options, std::size_t device_count, const PerformanceModel& model);

  /// `load(d)` describes device d for this task.
  std::size_t choose(const Task& task, const std::function<DeviceLoad(std::size_t)>& load);

  /// The task's own policy, else the executor's.
  SchedulingPolicy policy_for(const Task& task) const;
  /// Seconds the task is predicted to take on the device; nullopt if unknown.
  std::optional<double> estimate(const Task& task, std::size_t device) const;

 private:
  std::size_t earliest_finish(const Task& task, const std::function<DeviceLoad(std::size_t)>& load);
  double now() const;

  SchedulingPolicy policy_;
  bool deterministic_;
  std::size_t device_count_;
  const PerformanceModel& model_;
  std::size_t next_device_ = 0;
  std::vector<std::size_t> assigned_;  // tasks placed per device
  std::vector<double> free_at_;        // predicted, seconds since start
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// Work-items of a kernel task: the size its timings are kept for.
std::size_t work_items(const Task& task);

}  // namespace alloy::detail
