// Device placement policies, and the measurements they learn from.
#include "placement.hpp"

#include <algorithm>
#include <string>

#include "alloy/error.hpp"

namespace alloy::detail {

Placement::Placement(const ExecutorOptions& options, std::size_t device_count,
                     CompletionLane& completions)
    : policy_(options.policy),
      deterministic_(options.deterministic),
      device_count_(device_count),
      completions_(completions),
      assigned_(device_count, 0),
      free_at_(device_count, 0.0) {}

SchedulingPolicy Placement::policy_for(const Task& task,
                                       std::optional<SchedulingPolicy> run_policy) const {
  return task.options.policy.value_or(run_policy.value_or(policy_));
}

double Placement::now() const {
  if (deterministic_) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::optional<double> Placement::estimate(const Task& task, std::size_t device) const {
  if (const KernelWork* kernel = task.kernel()) {
    if (auto measured = model_.kernel_seconds(kernel->key, device, kernel->work_items())) return measured;
    if (!tuned_times_) return std::nullopt;
    const auto [known, added] = tuned_.try_emplace({device, kernel->key});
    if (added) known->second = tuned_times_(task, device);
    return known->second;
  }
  // Copies and fills move their bytes at about transfer speed.
  const std::size_t bytes = task.accesses.empty() ? 0 : task.accesses.back().slice.range.size();
  return static_cast<double>(bytes) / model_.bytes_per_second(device);
}

bool Placement::reads_loads(const Task& task, SchedulingPolicy policy) const {
  if (task.options.device) return false;
  return policy == SchedulingPolicy::earliest_finish_time ||
         (policy == SchedulingPolicy::least_loaded && !deterministic_);
}

std::size_t Placement::choose(const Task& task, SchedulingPolicy policy, std::span<const DeviceLoad> loads) {
  std::size_t chosen = 0;
  if (task.options.device) {
    if (*task.options.device >= device_count_) {
      throw InvalidArgument("the task asks for device " + std::to_string(*task.options.device) +
                            " but the executor has " + std::to_string(device_count_));
    }
    chosen = *task.options.device;
  } else if (policy == SchedulingPolicy::earliest_finish_time) {
    return earliest_finish(task, loads);
  } else if (policy == SchedulingPolicy::least_loaded) {
    std::size_t best_load = 0;
    for (std::size_t d = 0; d < device_count_; ++d) {
      const std::size_t busy = deterministic_ ? assigned_[d] : loads[d].in_flight;
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

std::size_t Placement::earliest_finish(const Task& task, std::span<const DeviceLoad> loads) {
  std::vector<std::optional<double>> seconds;
  double measured_sum = 0;
  std::size_t measured = 0;
  for (std::size_t d = 0; d < device_count_; ++d) {
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
    // A device without an estimate (not measured, not tuned) is assumed to
    // be average: it gets its share, and with it the measurements that
    // replace the guess.
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

bool Placement::measures(SchedulingPolicy policy) const {
  return !deterministic_ && policy == SchedulingPolicy::earliest_finish_time;
}

bool Placement::samples_kernel(const Task& task, SchedulingPolicy policy, std::size_t device, bool needed) {
  const KernelWork* kernel = task.kernel();
  if (!kernel || !(measures(policy) || needed)) return false;
  const std::size_t launches = kernel_launches_[{device, kernel->key}]++;
  return launches < sample_every || launches % sample_every == 0 ||
         model_.kernel_samples(kernel->key, device, kernel->work_items()) < PerformanceModel::min_samples;
}

void Placement::measure(const Task& task, std::size_t device, std::shared_ptr<Event> done,
                        std::vector<TimedTransfer> transfers) {
  for (auto& transfer : transfers) {
    completions_.watch({transfer.event}, [this, transfer](std::exception_ptr failed) {
      if (failed) return;
      const double seconds = static_cast<double>(transfer.event->timing().duration_ns()) * 1e-9;
      model_.record_transfer(transfer.device, transfer.bytes, seconds);
    });
  }
  if (!done) return;
  const KernelWork& kernel = *task.kernel();
  completions_.watch({done}, [this, key = kernel.key, device, items = kernel.work_items(),
                          done](std::exception_ptr failed) {
    if (failed) return;
    const double seconds = static_cast<double>(done->timing().duration_ns()) * 1e-9;
    model_.record_kernel(key, device, items, seconds);
  });
}

}  // namespace alloy::detail
