// Starting and finishing host tasks.
#include <chrono>
#include <utility>

#include "alloy/error.hpp"
#include "executor_state.hpp"
#include "tracing/profiler_ranges.hpp"

namespace alloy::detail {

void ExecutorState::start_host_task(std::uint64_t id) {
  TaskState& state = task(id);
  std::vector<std::shared_ptr<Event>> producers;
  for_each_dependency(state, [&](std::uint64_t before) {
    if (const auto& event = task(before).event) producers.push_back(event);
  });
  std::vector<std::shared_ptr<Event>> waits = producers;
  planner.prepare_on_host(state.task->accesses, producers, waits);
  std::erase_if(waits, [](const auto& event) { return event->is_complete(); });
  if (state.task->on_host()) state.run->count_host_task();
  const bool runs_inline = state.runs_inline;
  // Named here, under the executor's lock, for profilers' ranges.
  std::string range_name = profiler_listening() ? label(id) : std::string();
  if (waits.empty() && runs_inline) {
    // The clock is read only for a trace: a host task may take well under a microsecond.
    TraceClock::Ticks started = 0;
    if (recorder) started = recorder->now();
    if (state.function) {
      const ProfilerRange range([&] { return range_name; });
      state.function();
    }
    state.function = nullptr;
    if (recorder) recorder->host_task(attribution(id), started, recorder->now());
    release(id);
    return;
  }
  ++handed_off;
  std::function<void()> function = std::move(state.function);
  const AsyncWork* async = state.task->async();
  if (waits.empty()) {
    post_host_task(id, std::move(function), std::move(range_name), async);
    return;
  }
  // The completion lane waits for the device work; the feeder goes on.
  completions.watch(std::move(waits), [this, id, runs_inline, async, function = std::move(function),
                                   range_name = std::move(range_name)](std::exception_ptr failed) mutable {
    if (failed) {
      function = nullptr;  // breaks the promise of a synchronize waiting on it
      finish_host_task(id, std::move(failed));
    } else if (runs_inline) {
      run_host_task(id, std::move(function), range_name);
    } else {
      post_host_task(id, std::move(function), std::move(range_name), async);
    }
  });
}

void ExecutorState::post_host_task(std::uint64_t id, std::function<void()> function, std::string range_name,
                                   const AsyncWork* async) {
  // The run holds its graph until wait() forgets the task, so the start
  // function may be called from the lane without the lock.
  if (async) {
    const auto started = std::make_shared<TraceClock::Ticks>();
    completions.post(
        [this, start = &async->start, started] {
          if (recorder) *started = recorder->now();
          return (*start)();
        },
        [this, id, started](std::exception_ptr failed) {
          std::optional<HostTaskTimes> ran;
          if (recorder) ran = HostTaskTimes{*started, recorder->now()};
          finish_host_task(id, std::move(failed), ran);
        });
    return;
  }
  host_pool.post([this, id, function = std::move(function), range_name = std::move(range_name)]() mutable {
    run_host_task(id, std::move(function), range_name);
  });
}

void ExecutorState::run_host_task(std::uint64_t id, std::function<void()> function, const std::string& range_name) {
  std::exception_ptr error;
  const RunningHostTask outer = std::exchange(running_host_task(), {this, id});
  // `recorder` is set when the executor is made, so reading it here is safe.
  HostTaskTimes times;
  if (recorder) times.started = recorder->now();
  try {
    const ProfilerRange range([&] { return range_name; });
    if (function) function();
  } catch (...) {
    error = std::current_exception();
  }
  running_host_task() = outer;
  function = nullptr;  // releases what it holds before dependents are told
  if (recorder) times.ended = recorder->now();
  finish_host_task(id, std::move(error), times);
}

void ExecutorState::finish_host_task(std::uint64_t id, std::exception_ptr error, std::optional<HostTaskTimes> ran) {
  HostPool::Finishing finishing;  // this thread runs the next ready host task
  std::lock_guard lock(mutex);
  if (recorder && ran) {
    if (task(id).task->async()) {
      recorder->async_task(attribution(id), ran->started, ran->ended);
    } else {
      recorder->host_task(attribution(id), ran->started, ran->ended);
    }
  }
  if (error) {
    // Moved, not copied: the task's state then holds the only reference, so
    // the exception is freed under the lock by whoever forgets the task, never
    // by this thread after wait() read it (libstdc++'s reference count is
    // invisible to ThreadSanitizer).
    fail(id, std::move(error));
  } else {
    release(id);
  }
  drain();
  // Only the last one wakes wait(): its condition.
  if (--handed_off == 0) settled.notify_all();
}

void check_not_waited_for_by_running_host_task(const RunRecord& run) {
  const RunningHostTask running = running_host_task();
  if (!running.executor) return;
  std::lock_guard link(run.link->mutex);
  if (running.executor != run.link->executor) return;
  running.executor->check_not_waited_for(run, running.id);
}

}  // namespace alloy::detail
