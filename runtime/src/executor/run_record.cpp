// Per-run records, failure reports, and the Run handle.
#include "run_record.hpp"

#include <algorithm>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "alloy/run.hpp"
#include "executor_state.hpp"
#include "host_pool.hpp"

namespace alloy {
namespace detail {

void RunRecord::add_failure(std::uint64_t task, std::string message) {
  std::lock_guard lock(mutex);
  failures.push_back({task, std::move(message), false});
}

void RunRecord::count_device_task(std::size_t device) {
  std::lock_guard lock(mutex);
  ++tasks_per_device.at(device);
}

void RunRecord::count_host_task() {
  std::lock_guard lock(mutex);
  ++host_tasks;
}

void RunRecord::finish() {
  {
    std::lock_guard lock(mutex);
    done = true;
    finished_at = std::chrono::steady_clock::now();
  }
  finished.notify_all();
}

std::vector<std::string> RunRecord::take_unreported() {
  std::lock_guard lock(mutex);
  std::sort(failures.begin(), failures.end(),
            [](const Failure& a, const Failure& b) { return a.task < b.task; });
  std::vector<std::string> messages;
  for (Failure& failure : failures) {
    if (failure.reported) continue;
    failure.reported = true;
    messages.push_back(failure.message);
  }
  return messages;
}

std::string describe(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

void report_failures(const std::vector<std::string>& failures, const std::string& operation) {
  if (failures.empty()) return;
  for (std::size_t i = 1; i < failures.size(); ++i) log_warning(operation + ": " + failures[i]);
  if (failures.size() == 1) throw Error(failures.front());
  throw Error(failures.front() + " (and " + std::to_string(failures.size() - 1) +
              " more failures, each logged)");
}

}  // namespace detail

namespace {

void block_until_done(detail::RunRecord& run) {
  std::unique_lock lock(run.mutex);
  if (run.done) return;
  lock.unlock();
  detail::check_not_waited_for_by_running_host_task(run);
  detail::watch_soon(run);
  detail::HostPool::Blocked blocked;  // others' host tasks may be what it waits for
  lock.lock();
  run.finished.wait(lock, [&] { return run.done; });
}

}  // namespace

detail::RunRecord& Run::record() const {
  if (!record_) throw InvalidArgument("this Run refers to no submission (default-constructed)");
  return *record_;
}

std::size_t Run::size() const { return record().size(); }

TaskId Run::task(TaskId task) const {
  detail::RunRecord& run = record();
  if (task.index >= run.size()) {
    throw InvalidArgument("Run::task(" + std::to_string(task.index) + ") of a submission of " +
                          std::to_string(run.size()) + " tasks");
  }
  return {run.first + task.index};
}

bool Run::done() const {
  detail::RunRecord& run = record();
  {
    std::lock_guard lock(run.mutex);
    if (run.done) return true;
  }
  detail::watch_soon(run);  // so that asking again eventually says yes
  return false;
}

void Run::wait() const {
  detail::RunRecord& run = record();
  block_until_done(run);
  detail::report_failures(run.take_unreported(), "Run::wait");
}

std::optional<std::string> Run::failure() const {
  if (!done()) return std::nullopt;
  detail::RunRecord& run = record();
  std::lock_guard lock(run.mutex);
  if (run.failures.empty()) return std::nullopt;
  const auto first = std::min_element(
      run.failures.begin(), run.failures.end(),
      [](const auto& a, const auto& b) { return a.task < b.task; });
  return first->message;
}

const char* lane_name(Lane lane) {
  switch (lane) {
    case Lane::compute: return "compute";
    case Lane::copy_in: return "copy-in";
    case Lane::copy_out: return "copy-out";
  }
  return "?";
}

std::vector<CommandTime> Run::command_times() const {
  detail::RunRecord& run = record();
  if (!run.timed) {
    throw Error("Run::command_times of a run submitted without RunOptions::timed: its commands "
                "recorded no timestamps; submit it with timed = true");
  }
  block_until_done(run);
  std::vector<CommandTime> times;
  times.reserve(run.timed_commands.size());
  for (const auto& command : run.timed_commands) {
    EventTiming timing;
    try {
      timing = command.event->timing();
    } catch (const std::exception&) {
      continue;  // the task failed: its failure is reported by wait()
    }
    times.push_back({{command.task}, command.device, command.lane, timing.started_ns, timing.ended_ns});
  }
  return times;
}

RunStatistics Run::statistics() const {
  done();  // a finished run not yet seen finishing is watched now
  detail::RunRecord& run = record();
  std::lock_guard lock(run.mutex);
  RunStatistics statistics;
  statistics.tasks = run.size();
  statistics.tasks_per_device = run.tasks_per_device;
  statistics.host_tasks = run.host_tasks;
  const auto end = run.done ? run.finished_at : std::chrono::steady_clock::now();
  statistics.wall_time = std::chrono::duration_cast<std::chrono::nanoseconds>(end - run.submitted);
  return statistics;
}

}  // namespace alloy
