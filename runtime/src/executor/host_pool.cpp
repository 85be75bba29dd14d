// Host task threads, workers blocked in the runtime, and idle threads that go.
#include "host_pool.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

thread_local HostPool* current_pool = nullptr;  // the pool whose worker this thread is
thread_local bool finishing = false;            // see HostPool::Finishing

}  // namespace

HostPool::HostPool(unsigned limit, unsigned ceiling, std::chrono::milliseconds idle_exit)
    : limit_(std::max(1u, limit)), ceiling_(std::max(limit_, ceiling)), idle_exit_(idle_exit) {}

HostPool::~HostPool() {
  std::map<std::thread::id, std::thread> alive;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    join_exited();
    alive = std::move(threads_);  // none is added or removed once stopping
  }
  work_ready_.notify_all();
  for (auto& [id, thread] : alive) thread.join();
}

void HostPool::post(std::function<void()> work) {
  std::lock_guard lock(mutex_);
  queue_.push_back(std::move(work));
  start_work(finishing && current_pool == this ? 1 : 0);  // the caller takes one next
}

std::size_t HostPool::threads() {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

void HostPool::start_work(std::size_t taken_next) {
  if (queue_.size() <= taken_next || running_ >= limit_) return;
  // Blocked workers hold their threads: only the others count against the
  // limit. Queued work beyond the idle threads needs a thread of its own,
  // up to the limit.
  const std::size_t waiting = queue_.size() - taken_next;
  const std::size_t unblocked = threads_.size() - blocked_;
  const std::size_t idle = unblocked - running_;
  if (idle < waiting && unblocked < limit_ && !stopping_) {
    join_exited();
    // Started under the lock, so the worker finds itself in threads_.
    std::thread thread([this] { work_loop(); });
    const std::thread::id id = thread.get_id();
    threads_.emplace(id, std::move(thread));
  } else if (idle > 0) {
    work_ready_.notify_one();
  }
}

void HostPool::join_exited() {
  // An exited worker has left the lock for good: joining it cannot wait on us.
  for (std::thread& thread : exited_) thread.join();
  exited_.clear();
}

void HostPool::work_loop() {
  current_pool = this;
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto has_work = [&] { return (!queue_.empty() && running_ < limit_) || stopping_; };
    // Checked first: wait_for reads the clock for its deadline even when the
    // work is there, and a busy worker passes here once per task.
    if (!has_work() && !work_ready_.wait_for(lock, idle_exit_, has_work)) {
      // Idle for long enough: the thread goes, and the next one that starts
      // (or the destructor) joins it.
      auto self = threads_.find(std::this_thread::get_id());
      exited_.push_back(std::move(self->second));
      threads_.erase(self);
      return;
    }
    if (queue_.empty()) return;  // stopping, and nothing left
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    work();
    work = nullptr;  // what it holds goes before the next task starts
    lock.lock();
    // More may be queued than the idle threads took. This worker, counted
    // as running until it takes the next, is not one to wake for it.
    start_work(1);
    --running_;
  }
}

HostPool::Finishing::Finishing() : outer_(std::exchange(finishing, true)) {}

HostPool::Finishing::~Finishing() { finishing = outer_; }

HostPool::Blocked::Blocked() : pool_(current_pool) {
  if (!pool_) return;
  std::lock_guard lock(pool_->mutex_);
  if (pool_->blocked_ + 1 > pool_->ceiling_ - pool_->limit_) {
    throw Error("a host task would block (in synchronize or wait) while " + std::to_string(pool_->blocked_) +
                " of its executor's host tasks already are: the executor holds at most " +
                std::to_string(pool_->ceiling_) + " host threads (ExecutorOptions::host_thread_ceiling), " +
                std::to_string(pool_->limit_) + " of them for tasks that run; raise the ceiling, or let host "
                "tasks declare what they need as accesses instead of waiting for it");
  }
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
