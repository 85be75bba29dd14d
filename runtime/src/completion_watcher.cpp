// The completion thread.
#include "completion_watcher.hpp"

namespace alloy::detail {

CompletionWatcher::CompletionWatcher() : thread_([this] { loop(); }) {}

CompletionWatcher::~CompletionWatcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_one();
  thread_.join();
}

void CompletionWatcher::watch(std::vector<std::shared_ptr<Event>> events, Callback done) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(events), std::move(done)});
    ++handed_in_;
  }
  changed_.notify_one();
}

std::uint64_t CompletionWatcher::handed_in() {
  std::lock_guard lock(mutex_);
  return handed_in_;
}

void CompletionWatcher::wait_for_callbacks(std::uint64_t mark) {
  if (std::this_thread::get_id() == thread_.get_id()) return;
  std::unique_lock lock(mutex_);
  finished_changed_.wait(lock, [&] { return finished_ >= mark; });
}

void CompletionWatcher::loop() {
  for (;;) {
    Watch next;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    std::exception_ptr failure;
    for (const auto& event : next.events) {
      try {
        event->wait();
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    }
    next.events.clear();
    next.done(std::move(failure));  // the callback holds the only reference (see AsyncLane::start_all)
    next.done = nullptr;  // what it captured is released before wait_for_callbacks() returns
    {
      std::lock_guard lock(mutex_);
      ++finished_;
    }
    finished_changed_.notify_all();
  }
}

}  // namespace alloy::detail
