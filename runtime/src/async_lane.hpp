// One thread that starts an executor's asynchronous operations and polls
// them until they complete (internal to the runtime).
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "alloy/async_operation.hpp"

namespace alloy::detail {

/// Operations are started in the order posted and polled in turn while any
/// is in flight; with none, the thread sleeps until one is posted. Starting
/// and polling on one thread means a library with a thread level of its own
/// (MPI's) sees its calls come from one place. The thread starts with the
/// first operation: executors that have none cost no thread. Thread-safe.
class AsyncLane {
 public:
  /// Called on the lane once the operation completed, with its failure or null.
  using Done = std::function<void(std::exception_ptr)>;

  AsyncLane() = default;
  /// Polls what is in flight to its end, then stops.
  ~AsyncLane();
  AsyncLane(const AsyncLane&) = delete;
  AsyncLane& operator=(const AsyncLane&) = delete;

  void post(AsyncStart start, Done done);

 private:
  struct Posted {
    AsyncStart start;
    Done done;
  };
  struct InFlight {
    std::unique_ptr<AsyncOperation> operation;
    Done done;
  };
  void loop();
  /// Starts what was posted; a start that throws or gives no operation is done at once.
  static void start_all(std::vector<Posted> posted, std::vector<InFlight>& in_flight);
  /// Polls each operation once; those that completed or failed are done.
  static void poll_all(std::vector<InFlight>& in_flight);

  std::mutex mutex_;
  std::condition_variable posted_changed_;
  std::vector<Posted> posted_;
  bool stopping_ = false;
  std::thread thread_;  ///< started by the first post()
};

}  // namespace alloy::detail
