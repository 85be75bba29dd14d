// Which device runs each device task, and the measurements that choice
// learns from (internal to the runtime).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "alloy/backend/event.hpp"
#include "alloy/executor.hpp"
#include "alloy/performance_model.hpp"
#include "completion_lane.hpp"
#include "devices/lanes.hpp"
#include "graph/task.hpp"

namespace alloy::detail {

/// What placement knows of one device when placing a task.
struct DeviceLoad {
  std::size_t in_flight = 0;     ///< commands submitted, not yet seen complete
  std::size_t missing_bytes = 0;  ///< of the task's inputs, not valid on the device
};

/// Applies the executor's policies. Earliest finish time, as in HEFT: the
/// device where the task is predicted to end first, counting when the device
/// will be free (its queued work's estimates), the transfers of inputs it
/// lacks, and the kernel's measured time there. A device without a
/// measurement of the kernel expects the time its tuning profile recorded,
/// if it has one (tuned_times); else it is assumed to be as fast as the
/// average of those with an estimate. While no device has one, the least
/// loaded takes the task. In
/// deterministic mode the clock and the in-flight counts are not consulted,
/// so placement follows from the submissions and the model alone.
///
/// It also feeds the performance model: while placing by earliest finish
/// time (and not deterministic), the times of kernels and host-to-device
/// transfers are recorded from their events on the completion lane;
/// a kernel is sampled until it has enough samples, then one launch in
/// `sample_every`. Commands nothing measures are submitted untimed.
class Placement {
 public:
  Placement(const ExecutorOptions& options, std::size_t device_count, CompletionLane& completions);

  /// Kernel times are sampled until a key has enough, then one launch in this many.
  static constexpr std::size_t sample_every = 16;

  /// The task's own policy, else its run's, else the executor's.
  SchedulingPolicy policy_for(const Task& task, std::optional<SchedulingPolicy> run_policy) const;
  /// Whether choose() reads the devices' loads for this task (else it takes none).
  bool reads_loads(const Task& task, SchedulingPolicy policy) const;
  /// `loads[d]` describes device d for this task, where reads_loads().
  std::size_t choose(const Task& task, SchedulingPolicy policy, std::span<const DeviceLoad> loads);
  /// Seconds the task is predicted to take on the device; nullopt if unknown.
  std::optional<double> estimate(const Task& task, std::size_t device) const;

  /// Whether tasks placed by `policy` have their transfers timed.
  bool measures(SchedulingPolicy policy) const;
  /// Whether this launch of the kernel task on `device` is timed; asked
  /// once per launch, before it is submitted. `needed`: the executor needs
  /// the kernel's time whatever the policy (to slice it).
  bool samples_kernel(const Task& task, SchedulingPolicy policy, std::size_t device, bool needed = false);
  /// Records, once they complete, the kernel's time (`done`, when sampled)
  /// and the transfers' bandwidth.
  void measure(const Task& task, std::size_t device, std::shared_ptr<Event> done,
               std::vector<TimedTransfer> transfers);

  PerformanceModel& model() { return model_; }

  /// Seconds a kernel task's tuning profile expects on a device, if any:
  /// asked once per kernel and device, for kernels not measured there yet.
  using TunedTimes = std::function<std::optional<double>(const Task& task, std::size_t device)>;
  void set_tuned_times(TunedTimes tuned_times) { tuned_times_ = std::move(tuned_times); }

 private:
  std::size_t earliest_finish(const Task& task, std::span<const DeviceLoad> loads);
  double now() const;

  SchedulingPolicy policy_;
  bool deterministic_;
  std::size_t device_count_;
  CompletionLane& completions_;
  PerformanceModel model_;
  std::size_t next_device_ = 0;
  std::vector<std::size_t> assigned_;  // tasks placed per device
  std::vector<double> free_at_;        // predicted, seconds since start
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::map<std::pair<std::size_t, std::uint64_t>, std::size_t> kernel_launches_;
  TunedTimes tuned_times_;
  mutable std::map<std::pair<std::size_t, std::uint64_t>, std::optional<double>> tuned_;  // by device, kernel key
};

}  // namespace alloy::detail
