// Host tasks blocked in another executor's synchronize, process-wide: a wait
// that would close a cycle through them is refused (internal to the runtime).
#pragma once

#include <cstdint>

namespace alloy::detail {

struct ExecutorState;

/// While it lives, records that host task `waiter` of `waiter_executor`
/// waits in a synchronize of `target_executor` for its marker `marker`.
/// Made before the wait blocks; throws Error, recording nothing, when the
/// marker waits (through tasks of several executors, each blocked the same
/// way) for the waiting task itself, naming both ends.
///
/// Made without any executor's lock held: it takes the executors' locks one
/// at a time, under a lock of its own that no executor's holder takes.
class CrossExecutorWait {
 public:
  CrossExecutorWait(ExecutorState& waiter_executor, std::uint64_t waiter, ExecutorState& target_executor,
                    std::uint64_t marker);
  ~CrossExecutorWait();
  CrossExecutorWait(const CrossExecutorWait&) = delete;
  CrossExecutorWait& operator=(const CrossExecutorWait&) = delete;

  struct Entry {
    ExecutorState* waiter_executor;
    std::uint64_t waiter;
    ExecutorState* target_executor;
    std::uint64_t marker;
  };

 private:
  Entry entry_;
};

}  // namespace alloy::detail
