// Host task threads, and workers blocked in the runtime.
#include "host_pool.hpp"

#include <utility>

namespace alloy::detail {
namespace {

thread_local HostPool* current_pool = nullptr;  // the pool whose worker this thread is
thread_local bool finishing = false;            // see HostPool::Finishing

}  // namespace

HostPool::HostPool(unsigned limit) : limit_(limit == 0 ? 1 : limit) {}

HostPool::~HostPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void HostPool::post(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
    start_work();
  }
}

void HostPool::start_work() {
  if (queue_.empty() || running_ >= limit_) return;
  // Blocked workers hold their threads: only the others count against the
  // limit. Queued work beyond the idle threads needs a thread of its own,
  // up to the limit.
  std::size_t waiting = queue_.size();
  if (finishing && current_pool == this) --waiting;  // the caller takes one next
  if (waiting == 0) return;
  const std::size_t unblocked = threads_.size() - blocked_;
  const std::size_t idle = unblocked - running_;
  if (idle < waiting && unblocked < limit_) {
    threads_.emplace_back([this] { work_loop(); });
  } else if (idle > 0) {
    work_ready_.notify_one();
  }
}

void HostPool::work_loop() {
  current_pool = this;
  std::unique_lock lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return (!queue_.empty() && running_ < limit_) || stopping_; });
    if (queue_.empty()) return;  // stopping, and nothing left
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    work();
    work = nullptr;  // what it holds goes before the next task starts
    lock.lock();
    --running_;
    start_work();  // more may be queued than the idle threads took
  }
}

HostPool::Finishing::Finishing() : outer_(std::exchange(finishing, true)) {}

HostPool::Finishing::~Finishing() { finishing = outer_; }

HostPool::Blocked::Blocked() : pool_(current_pool) {
  if (!pool_) return;
  std::lock_guard lock(pool_->mutex_);
  --pool_->running_;
  ++pool_->blocked_;
  pool_->start_work();
}

HostPool::Blocked::~Blocked() {
  if (!pool_) return;
  std::lock_guard lock(pool_->mutex_);
  --pool_->blocked_;
  ++pool_->running_;  // may exceed the limit until it finishes
}

}  // namespace alloy::detail
