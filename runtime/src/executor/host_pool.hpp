// Threads that run one executor's host tasks (internal to the runtime).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace alloy::detail {

/// Runs host tasks on threads of its own, at most `limit` at once, starting
/// threads as work arrives; a thread idle for `idle_exit` exits. Host tasks
/// may block (on I/O, or in another executor's synchronize), which is why
/// these are plain threads and not oneTBB's: oneTBB sizes its workers by the
/// cores, and a task that blocks there holds a core's worth of every
/// executor's host work.
///
/// A worker that blocks inside the runtime says so (Blocked): while it
/// waits, it does not count against the limit, so work it waits for can
/// still start. The pool never holds more than `ceiling` threads: a worker
/// that would block past it gets an error instead. Thread-safe.
class HostPool {
 public:
  static constexpr std::chrono::seconds default_idle_exit{5};

  /// `ceiling` below `limit` counts as `limit`: no worker may block.
  HostPool(unsigned limit, unsigned ceiling, std::chrono::milliseconds idle_exit = default_idle_exit);
  /// Runs what is queued, then joins every thread.
  ~HostPool();
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  void post(std::function<void()> work);
  /// Threads alive now, blocked ones included.
  std::size_t threads();

  /// While it lives, work this worker posts to its own pool waits for it
  /// rather than waking another thread, up to one item: the worker is about
  /// to finish its task and take the next. For a chain of host tasks this
  /// saves a hand-over to another thread per task.
  class Finishing {
   public:
    Finishing();
    ~Finishing();
    Finishing(const Finishing&) = delete;
    Finishing& operator=(const Finishing&) = delete;

   private:
    bool outer_;
  };

  /// While it lives, the calling thread, if a worker of some pool, counts
  /// as blocked rather than running. Does nothing on other threads. Throws
  /// Error, blocking nothing, where the pool's workers blocked at once
  /// would pass `ceiling - limit` (see ExecutorOptions::host_thread_ceiling).
  class Blocked {
   public:
    Blocked();
    ~Blocked();
    Blocked(const Blocked&) = delete;
    Blocked& operator=(const Blocked&) = delete;

   private:
    HostPool* pool_;
  };

 private:
  void work_loop();
  /// With `mutex_` held: wakes an idle worker or starts one, if the limit
  /// allows, for the queued work beyond the `taken_next` items that the
  /// caller, a worker counted as running, takes itself next.
  void start_work(std::size_t taken_next = 0);
  /// With `mutex_` held: joins the threads that exited when idle.
  void join_exited();

  const unsigned limit_;
  const unsigned ceiling_;
  const std::chrono::milliseconds idle_exit_;
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<std::function<void()>> queue_;
  std::map<std::thread::id, std::thread> threads_;  ///< alive
  std::vector<std::thread> exited_;                 ///< returned from work_loop, not joined yet
  unsigned running_ = 0;  // workers running a task and not blocked
  unsigned blocked_ = 0;  // workers running a task, blocked in the runtime
  bool stopping_ = false;
};

}  // namespace alloy::detail
