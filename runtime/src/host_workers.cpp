// The process-wide host worker pool.
#include "host_workers.hpp"

namespace alloy::detail {

HostWorkers& HostWorkers::instance() {
  static HostWorkers workers;
  return workers;
}

void HostWorkers::post(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
  }
  arena_.enqueue([] { instance().run_one(); });
}

void HostWorkers::run_one() {
  std::function<void()> work;
  {
    std::lock_guard lock(mutex_);
    work = std::move(queue_.front());
    queue_.pop_front();
  }
  work();
}

}  // namespace alloy::detail
