// The executor state's public calls: what the Executor, Run handles and
// waits across executors ask of it, each under its lock.
#include "executor_state.hpp"

#include <unistd.h>

#include "alloy/error.hpp"
#include "alloy/log.hpp"

namespace alloy::detail {

std::shared_ptr<RunRecord> ExecutorState::submit(std::shared_ptr<const GraphData> graph, const RunOptions& run_options,
                                                 std::optional<OneTask> one_task) {
  std::lock_guard lock(mutex);
  return add_run(std::move(graph), run_options, std::move(one_task));
}

void ExecutorState::wait() {
  std::unique_lock lock(mutex);
  settled.wait(lock, [&] { return handed_off == 0; });
  watch_unwatched();
  // Every task is released now, so every run has handed its completion to
  // the completion lane: once those callbacks ran, all of this work is done
  // and its failures are in the runs' records.
  const std::uint64_t end = next_id();
  const std::uint64_t watched = completions.handed_in();
  const std::vector<std::shared_ptr<RunRecord>> waited(runs.begin(), runs.end());
  lock.unlock();
  completions.wait_for_callbacks(watched);

  std::vector<std::string> failures;
  for (const auto& run : waited) {
    for (std::string& failure : run->take_unreported()) failures.push_back(std::move(failure));
  }
  lock.lock();
  // Forget finished work unless more arrived meanwhile.
  if (next_id() == end && handed_off == 0 && first_live != end) forget_finished();
  lock.unlock();
  // The commands waited for are complete and the devices idle: their times
  // are read now, outside the executor's lock, rather than during later runs.
  if (recorder) recorder->harvest();
  report_failures(failures, "wait");
}

void ExecutorState::close() {
  {
    // Every run is done: Run handles stop asking this executor.
    std::lock_guard lock(link->mutex);
    link->executor = nullptr;
  }
  planner.bring_buffers_home();
  write_trace_at_exit();
}

void ExecutorState::check_not_waited_for(std::uint64_t marker, std::uint64_t running) const {
  std::lock_guard lock(mutex);
  if (live(marker) && waits_for(marker, running)) {
    throw Error("synchronize called from " + label(running) +
                " would wait for that task itself: the slice is written by it or by a task "
                "after it; declare the slice among the task's accesses instead");
  }
}

void ExecutorState::check_not_waited_for(const RunRecord& run, std::uint64_t running) const {
  std::lock_guard lock(mutex);
  for (std::uint64_t id = run.first; id < run.first + run.size(); ++id) {
    if (live(id) && waits_for(id, running)) {
      throw Error("Run::wait called from " + label(running) +
                  " would wait for that task itself: the run has tasks after it; wait from "
                  "outside the executor's tasks, or declare what the task needs among its accesses");
    }
  }
}

void ExecutorState::throw_synchronize_failure(std::uint64_t marker) const {
  std::lock_guard lock(mutex);
  if (live(marker) && task(marker).error) {
    throw Error("synchronize: the slice depends on " + failure_behind(marker) + " (wait() reports it too)");
  }
  throw Error("synchronize: a task this slice depends on failed; wait() names it");
}

bool ExecutorState::waits_for_live(std::uint64_t id, std::uint64_t running) const {
  std::lock_guard lock(mutex);
  return live(id) && waits_for(id, running);
}

std::string ExecutorState::label_of(std::uint64_t id) const {
  std::lock_guard lock(mutex);
  return live(id) ? label(id) : "task " + std::to_string(id);
}

void ExecutorState::watch_soon(RunRecord& run) {
  std::lock_guard lock(mutex);
  run.asked = true;  // if not released yet, watched as soon as it is
  watch_unwatched();
}

void ExecutorState::host_write_ended(BufferStorage& storage, std::size_t device) {
  std::lock_guard lock(mutex);
  if (planner.end_host_write(storage, device)) retry_waiting_for_memory(device);
}

const ResolvedKernel& ExecutorState::resolve(const KernelWork& kernel, std::size_t device) {
  std::lock_guard lock(mutex);
  return planner.resolve(kernel, device);
}

std::vector<std::size_t> ExecutorState::tasks_per_device() const {
  std::lock_guard lock(mutex);
  return task_counts;
}

std::vector<DeviceJob> ExecutorState::jobs_on(std::size_t device) const {
  std::lock_guard lock(mutex);
  std::vector<DeviceJob> jobs;
  for (const JobState& state : sharing.jobs(device)) {
    jobs.push_back({state.pid, state.priority_class, state.in_flight, state.memory_in_use, state.memory_share});
  }
  if (jobs.empty()) {
    // No segment: this job alone, as it knows itself.
    jobs.push_back({static_cast<std::int32_t>(::getpid()), sharing.priority_class(), 0, planner.memory_used(device),
                    planner.shares()[device]});
  }
  return jobs;
}

}  // namespace alloy::detail
