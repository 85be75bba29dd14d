// What the executor knows of one submission: its tasks' ids, its failures and
// statistics, and when it is done (internal to the runtime).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "alloy/backend/event.hpp"
#include "alloy/run.hpp"
#include "graph/graph_data.hpp"

namespace alloy::detail {

class ExecutorState;

struct RunRecord : std::enable_shared_from_this<RunRecord> {
  // Set at submission, then only read.
  /// What its tasks point into; dropped when the executor forgets them, so
  /// that a Run kept by the program does not keep the graph's functions.
  std::shared_ptr<const GraphData> graph;
  std::size_t tasks = 0;
  std::uint64_t first = 0;   ///< the executor-wide id of its task 0
  std::uint32_t number = 0;  ///< counts graph runs, for labels; 0: a one-task call
  std::optional<SchedulingPolicy> policy;  ///< for its tasks that name none
  bool timed = false;                      ///< RunOptions::timed
  std::uint32_t traced_as = 0;             ///< its index in a trace (TraceAttribution::run)
  std::chrono::steady_clock::time_point submitted = std::chrono::steady_clock::now();
  /// Its executor, while that lives (the executor clears it when it goes):
  /// a Run asks it to watch a one-task run now, and whether Run::wait() is
  /// called from a host task the run waits for.
  struct ExecutorLink {
    std::mutex mutex;
    ExecutorState* executor = nullptr;
  };
  std::shared_ptr<ExecutorLink> link;

  // Under the executor's lock.
  std::size_t unreleased = 0;  ///< tasks not yet enqueued, or not yet finished on the host
  /// A Run asked about it before it was done: once released, a one-task run
  /// is watched at once rather than in the next batch.
  bool asked = false;
  /// Its device tasks and their commands, in id order: once the last of
  /// each queue completed, so did all (queues run in order).
  std::vector<std::pair<std::uint64_t, std::shared_ptr<Event>>> device_commands;
  /// A timed run's commands, kept for Run::command_times() while the record lives.
  struct TimedCommand {
    std::uint64_t task;
    std::size_t device;
    Lane lane;
    std::shared_ptr<Event> event;
  };
  std::vector<TimedCommand> timed_commands;

  std::size_t size() const { return tasks; }

  // Under `mutex`: read by Run handles without the executor.
  struct Failure {
    std::uint64_t task;
    std::string message;  ///< "task 3 'scale' (kernel) of graph run 2 failed: ..."
    bool reported = false;
  };
  mutable std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::chrono::steady_clock::time_point finished_at;
  std::vector<std::size_t> tasks_per_device;
  std::size_t host_tasks = 0;
  std::vector<Failure> failures;

  void add_failure(std::uint64_t task, std::string message);
  void count_device_task(std::size_t device);
  void count_host_task();
  /// Marks the run done and wakes its waiters.
  void finish();
  /// Failures not reported yet, first task first; they count as reported now.
  std::vector<std::string> take_unreported();
};

/// Makes sure a not yet done run's completion is being watched (one-task
/// runs are watched in batches), so that waiting for it ends.
void watch_soon(RunRecord& run);

/// What `error` says.
std::string describe(std::exception_ptr error);
/// Throws the first of `failures` (with how many more there were) and logs
/// the others as warnings, prefixed by `operation`; nothing when empty.
void report_failures(const std::vector<std::string>& failures, const std::string& operation);

}  // namespace alloy::detail
