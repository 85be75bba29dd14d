// Work that completes outside any device, such as a message on a network:
// an executor starts it and polls it on its async lane.
#pragma once

#include <functional>
#include <memory>

namespace alloy {

/// One started operation: a message sent or received, say. The executor
/// polls it on its async lane, one thread that polls every operation in
/// flight in turn, so test() must return at once: a blocking wait there
/// would hold up every other operation of the executor.
class AsyncOperation {
 public:
  virtual ~AsyncOperation() = default;
  /// True once the operation has completed, and then what it writes is in
  /// host memory. Throws if it failed: the task fails with that error.
  virtual bool test() = 0;
};

/// Starts an operation; called on the async lane once the task's accessed
/// slices are current in host memory. May throw: the task fails.
using AsyncStart = std::function<std::unique_ptr<AsyncOperation>()>;

}  // namespace alloy
