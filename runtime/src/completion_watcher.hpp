// One thread that waits for device events and then runs what was waiting on
// them (internal to the runtime).
#pragma once

#include <condition_variable>
#include <cstdint>
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

  /// How many watches were handed in so far: a mark for wait_for_callbacks().
  std::uint64_t handed_in();
  /// Returns once the callbacks of the first `mark` watches have all run,
  /// so that what they record (a kernel's measured time, say) is there. On
  /// the watcher's own thread it returns at once: it cannot wait for itself.
  void wait_for_callbacks(std::uint64_t mark);

 private:
  struct Watch {
    std::vector<std::shared_ptr<Event>> events;
    Callback done;
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::condition_variable finished_changed_;
  std::deque<Watch> queue_;
  std::uint64_t handed_in_ = 0;
  std::uint64_t finished_ = 0;  ///< watches whose callback has returned
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace alloy::detail
