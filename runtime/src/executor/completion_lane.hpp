// One thread that runs what waits on device events and asynchronous
// operations, in the order they complete (internal to the runtime).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "alloy/async_operation.hpp"
#include "alloy/backend/event.hpp"

namespace alloy::detail {

/// Devices say when a command completed through their backend's callbacks
/// (Event::on_complete), which only mark the watch ready here; the lane's
/// thread then runs what waited. So work waiting on device B never waits
/// behind a long command on device A that was handed in first, and neither
/// the thread that feeds the devices nor a host worker ever blocks.
///
/// Events whose backend has no callbacks, and asynchronous operations
/// (started and tested on this thread only, so that a library with a thread
/// level of its own, MPI's, sees its calls come from one place), are polled
/// in turn: first every `shortest_pause`, then, while nothing completes, at
/// intervals that double up to `longest_pause`. With nothing to poll the
/// thread sleeps. It starts with the first watch or operation: executors
/// without any cost no thread. Thread-safe.
class CompletionLane {
 public:
  /// Called on the lane, with the first failure or null.
  using Done = std::function<void(std::exception_ptr)>;

  static constexpr std::chrono::microseconds shortest_pause{20};
  static constexpr std::chrono::microseconds longest_pause{1000};

  CompletionLane() = default;
  /// Waits until everything handed in has completed and its `done` has
  /// run, then stops.
  ~CompletionLane();
  CompletionLane(const CompletionLane&) = delete;
  CompletionLane& operator=(const CompletionLane&) = delete;

  /// `done` runs once every event has completed.
  void watch(std::vector<std::shared_ptr<Event>> events, Done done);
  /// Starts the operation on the lane and polls it; `done` runs when it has
  /// completed, or at once if its start threw or gave none.
  void post(AsyncStart start, Done done);

  /// How many watches were handed in so far: a mark for wait_for_callbacks().
  std::uint64_t handed_in();
  /// Returns once the `done` of each of the first `mark` watches has
  /// returned, so that what they record (a kernel's measured time, say) is
  /// there. On the lane's own thread it returns at once: it cannot wait
  /// for itself.
  void wait_for_callbacks(std::uint64_t mark);

 private:
  struct Watch {
    std::vector<std::shared_ptr<Event>> events;
    Done done;
    std::size_t outstanding;  ///< events not known complete, plus one while watch() registers them
  };
  struct Polled {
    std::uint64_t watch;
    std::shared_ptr<Event> event;
  };
  struct Posted {
    AsyncStart start;
    Done done;
  };
  struct InFlight {
    std::unique_ptr<AsyncOperation> operation;
    Done done;
  };

  /// One of watch `number`'s events completed (from any thread, also a driver's).
  void event_completed(std::uint64_t number);
  void start_thread();
  void loop();
  /// Runs a watch whose events have all completed, then forgets it.
  void finish(std::uint64_t number);
  /// Checks each polled event once; true if any had completed.
  bool poll_events(std::vector<Polled>& polled);
  static void start_all(std::vector<Posted> posted, std::vector<InFlight>& in_flight);
  /// Tests each operation once; true if any completed or failed.
  static bool poll_operations(std::vector<InFlight>& in_flight);

  std::mutex mutex_;
  std::condition_variable changed_;           ///< news for the lane's thread
  std::condition_variable watches_finished_;  ///< a watch's `done` returned
  std::uint64_t handed_in_ = 0;
  /// Watches whose `done` has not returned yet, by number.
  std::map<std::uint64_t, Watch> watches_;
  std::vector<std::uint64_t> ready_;  ///< watches whose events all completed
  std::vector<Polled> to_poll_;       ///< events without callbacks, not yet taken by the thread
  std::vector<Posted> posted_;
  bool stopping_ = false;
  std::thread thread_;  ///< started by the first watch or post
};

}  // namespace alloy::detail
