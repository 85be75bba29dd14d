// Memory for what a trace recorder keeps (internal to the runtime).
#pragma once

#include <cstddef>
#include <memory_resource>
#include <mutex>

namespace alloy::detail {

/// Hands out memory from large blocks and takes none back: all of it goes
/// with the arena. A recorder keeps its records' strings and lists until it
/// goes; allocated one by one, each would sit among a backend's short-lived
/// blocks and fragment the heap for every allocation after it (a traced
/// chain of kernels on PoCL ran 1.3x slower from the dependency lists
/// alone). Safe to use from several threads.
class RecordArena final : public std::pmr::memory_resource {
 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    std::lock_guard lock(mutex_);
    return blocks_.allocate(bytes, alignment);
  }
  void do_deallocate(void*, std::size_t, std::size_t) override {}  // freed with the arena
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  std::mutex mutex_;
  std::pmr::monotonic_buffer_resource blocks_;
};

}  // namespace alloy::detail
