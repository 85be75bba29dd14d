// A handle to one submission to an Executor: a graph run or a one-task call.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloy/graph.hpp"

namespace alloy {
namespace detail {
struct RunRecord;
}

/// What one submission did.
struct RunStatistics {
  std::size_t tasks = 0;
  /// Device tasks started per device, in Executor::devices() order; host
  /// tasks and moves of no bytes are not on a device.
  std::vector<std::size_t> tasks_per_device;
  std::size_t host_tasks = 0;
  /// From submission until its last task was seen finishing; so far, while
  /// running. Tasks submitted alone are seen finishing in batches (of 64,
  /// or when their Run is asked about first), so a one-task run's wall time
  /// may include later tasks' unless something waited on it.
  std::chrono::nanoseconds wall_time{0};
};

/// The in-order queues of a device the executor feeds (see docs/executor.md).
enum class Lane { compute, copy_in, copy_out };
const char* lane_name(Lane lane);  ///< "compute", "copy-in", "copy-out"

/// One device command of a timed run (RunOptions::timed): a task's own
/// command, not the transfers the executor added to bring it its inputs.
struct CommandTime {
  TaskId task;         ///< executor-wide, as Run::task gives it
  std::size_t device;  ///< in Executor::devices() order
  Lane lane;
  /// On the device's clock: differences are meaningful per device only.
  std::uint64_t started_ns = 0;
  std::uint64_t ended_ns = 0;

  std::chrono::nanoseconds duration() const {
    return std::chrono::nanoseconds(ended_ns - started_ns);
  }
};

/// Returned by Executor::run and the one-task calls, as Taskflow's future
/// is for one run of a taskflow: wait for that submission alone, ask whether
/// it is done, read its failure and statistics. Copies refer to the same
/// submission. Thread-safe. A Run may outlive its Executor: the executor's
/// destruction finishes the submission, and the Run then reports on it.
class Run {
 public:
  Run() = default;  ///< refers to no submission: valid() is false
  explicit Run(std::shared_ptr<detail::RunRecord> record) : record_(std::move(record)) {}

  bool valid() const { return record_ != nullptr; }
  std::size_t size() const;  ///< tasks submitted
  /// The executor-wide id of the submission's task `task` (its id in the
  /// graph; a one-task call's only task is {0}): to name it in
  /// TaskOptions::after of later one-task calls. InvalidArgument past size().
  TaskId task(TaskId task = {}) const;

  /// Every task has finished (succeeded, failed, or did not run because a
  /// task it depends on failed). Does not block.
  bool done() const;
  /// Blocks until done(), then throws the submission's first failure not
  /// reported yet, as Executor::wait() does (an Error naming the task and
  /// how many more failed; the others logged as warnings). A failure thrown
  /// here is not thrown by Executor::wait() again, and the other way round.
  /// Error at once when called from a host task this submission waits for.
  void wait() const;
  /// The first failure, as wait() would throw it; nullopt if none, or while
  /// not done(). Reports nothing.
  std::optional<std::string> failure() const;
  RunStatistics statistics() const;
  /// Blocks until done(), then gives the device-measured time of each of
  /// the run's device commands, in the order they were enqueued. Error
  /// unless it was submitted with RunOptions::timed; commands of failed
  /// tasks are left out.
  std::vector<CommandTime> command_times() const;

 private:
  /// The shared record: a const handle still waits and reports on it.
  detail::RunRecord& record() const;

  std::shared_ptr<detail::RunRecord> record_;
};

}  // namespace alloy
