// Device placement policies.
#include "scheduler.hpp"

#include <algorithm>
#include <string>

#include "alloy/error.hpp"

namespace alloy::detail {

std::size_t work_items(const Task& task) {
  // A tunable kernel's range depends on the device: its problem size stands in.
  if (task.tunable) return task.problem.count();
  return task.range ? task.range->global.count() : 0;
}

Scheduler::Scheduler(const ExecutorOptions& options, std::size_t device_count,
                     const PerformanceModel& model)
    : policy_(options.policy),
      deterministic_(options.deterministic),
      device_count_(device_count),
      model_(model),
      assigned_(device_count, 0),
      free_at_(device_count, 0.0) {}

SchedulingPolicy Scheduler::policy_for(const Task& task) const {
  return task.options.policy.value_or(policy_);
}

double Scheduler::now() const {
  if (deterministic_) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::optional<double> Scheduler::estimate(const Task& task, std::size_t device) const {
  if (task.kind == TaskKind::kernel) {
    return model_.kernel_seconds(task.kernel_key, device, work_items(task));
  }
  // Copies and fills move their bytes at about transfer speed.
  const std::size_t bytes = task.accesses.empty() ? 0 : task.accesses.back().slice.range.size();
  return static_cast<double>(bytes) / model_.bytes_per_second(device);
}

std::size_t Scheduler::choose(const Task& task, const std::function<DeviceLoad(std::size_t)>& load) {
  std::size_t chosen = 0;
  if (task.options.device) {
    if (*task.options.device >= device_count_) {
      throw InvalidArgument("the task asks for device " + std::to_string(*task.options.device) +
                            " but the executor has " + std::to_string(device_count_));
    }
    chosen = *task.options.device;
  } else if (policy_for(task) == SchedulingPolicy::earliest_finish_time) {
    return earliest_finish(task, load);
  } else if (policy_for(task) == SchedulingPolicy::least_loaded) {
    std::size_t best_load = 0;
    for (std::size_t d = 0; d < device_count_; ++d) {
      const std::size_t busy = deterministic_ ? assigned_[d] : load(d).in_flight;
      if (d == 0 || busy < best_load) {
        best_load = busy;
        chosen = d;
      }
    }
  } else {
    chosen = next_device_++ % device_count_;
  }
  ++assigned_[chosen];
  return chosen;
}

std::size_t Scheduler::earliest_finish(const Task& task,
                                       const std::function<DeviceLoad(std::size_t)>& load) {
  std::vector<DeviceLoad> loads;
  std::vector<std::optional<double>> seconds;
  double measured_sum = 0;
  std::size_t measured = 0;
  for (std::size_t d = 0; d < device_count_; ++d) {
    loads.push_back(load(d));
    seconds.push_back(estimate(task, d));
    if (seconds.back()) {
      measured_sum += *seconds.back();
      ++measured;
    }
  }
  std::size_t chosen = 0;
  if (measured == 0) {
    // Nothing to predict from yet: spread the work, and so the measurements.
    for (std::size_t d = 1; d < device_count_; ++d) {
      const auto busy = [&](std::size_t i) { return deterministic_ ? assigned_[i] : loads[i].in_flight; };
      if (busy(d) < busy(chosen)) chosen = d;
    }
  } else {
    // A device that has not run this kernel yet is assumed to be average:
    // it gets its share, and with it the measurements that replace the guess.
    const double average = measured_sum / static_cast<double>(measured);
    const double start = now();
    double best = 0;
    for (std::size_t d = 0; d < device_count_; ++d) {
      const double transfer =
          static_cast<double>(loads[d].missing_bytes) / model_.bytes_per_second(d);
      const double finish = std::max(start, free_at_[d]) + transfer + seconds[d].value_or(average);
      if (d == 0 || finish < best) {
        best = finish;
        chosen = d;
      }
    }
    free_at_[chosen] = best;
  }
  ++assigned_[chosen];
  return chosen;
}

}  // namespace alloy::detail
