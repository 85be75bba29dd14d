// One thread that waits for device events and then runs what was waiting on
// them (internal to the runtime).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "alloy/backend/event.hpp"

namespace alloy::detail {

/// Blocks in the backend's wait (no polling) on one thread, so neither the
/// thread that feeds the devices nor a host worker ever does. Events are
/// waited for in the order they were handed in.
class CompletionWatcher {
 public:
  /// Called once every event has completed, with the first failure or null.
  using Callback = std::function<void(std::exception_ptr)>;

  CompletionWatcher();
  /// Runs what is still queued, then stops.
  ~CompletionWatcher();
  CompletionWatcher(const CompletionWatcher&) = delete;
  CompletionWatcher& operator=(const CompletionWatcher&) = delete;

  void watch(std::vector<std::shared_ptr<Event>> events, Callback done);

 private:
  struct Watch {
    std::vector<std::shared_ptr<Event>> events;
    Callback done;
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Watch> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace alloy::detail
