// oneTBB threads for host tasks (internal to the runtime).
#pragma once

#include <tbb/task_arena.h>

#include <deque>
#include <functional>
#include <mutex>

namespace alloy::detail {

/// Runs host work on oneTBB's workers, shared by every executor of the
/// process. Work waits in a mutex-guarded queue rather than travelling in
/// oneTBB's task captures: libtbb hands tasks between threads through
/// synchronization ThreadSanitizer cannot see (Debian's libtbb is not built
/// with it), and this way no data crosses it.
class HostWorkers {
 public:
  static HostWorkers& instance();

  void post(std::function<void()> work);

 private:
  void run_one();

  std::mutex mutex_;
  std::deque<std::function<void()>> queue_;
  tbb::task_arena arena_;
};

}  // namespace alloy::detail
