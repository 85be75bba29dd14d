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
  }
  changed_.notify_one();
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
    next.done(failure);
  }
}

}  // namespace alloy::detail
