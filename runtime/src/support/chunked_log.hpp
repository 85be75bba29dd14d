// A growing sequence whose elements never move (internal to the runtime).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace alloy::detail {

/// Elements in chunks of fixed capacity: appending allocates once per chunk,
/// not once per element or two as std::deque does for large records, and
/// elements never move, so a reader may hold references while others are
/// appended (under the owner's lock). clear() keeps the first chunks' memory
/// for the next elements. The executor's tasks and a trace's records are
/// appended by the thousand per run; the allocator's work would be much of
/// what each costs.
template <class T>
class ChunkedLog {
 public:
  template <class... Args>
  T& emplace_back(Args&&... args) {
    const std::size_t chunk = size_ / chunk_capacity;
    if (chunk == chunks_.size()) chunks_.emplace_back().reserve(chunk_capacity);
    T& added = chunks_[chunk].emplace_back(std::forward<Args>(args)...);
    ++size_;
    return added;
  }
  void push_back(T value) { emplace_back(std::move(value)); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return chunks_[i / chunk_capacity][i % chunk_capacity]; }
  const T& operator[](std::size_t i) const { return chunks_[i / chunk_capacity][i % chunk_capacity]; }

  /// Destroys every element; the memory of up to `kept_chunks` chunks stays
  /// for those appended next.
  void clear() {
    for (auto& chunk : chunks_) chunk.clear();
    if (chunks_.size() > kept_chunks) chunks_.resize(kept_chunks);
    size_ = 0;
  }

  template <class F>
  void for_each(F&& f) {
    for (auto& chunk : chunks_) {
      for (T& element : chunk) f(element);
    }
  }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& chunk : chunks_) {
      for (const T& element : chunk) f(element);
    }
  }

 private:
  static constexpr std::size_t chunk_capacity = 1024;
  static constexpr std::size_t kept_chunks = 16;
  std::vector<std::vector<T>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace alloy::detail
