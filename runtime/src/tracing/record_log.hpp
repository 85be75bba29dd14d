// An append-only sequence for a recorder's records (internal to the runtime).
#pragma once

#include <cstddef>
#include <vector>

namespace alloy::detail {

/// Elements in chunks of fixed capacity: appending allocates once per chunk,
/// not once per element or two as std::deque does for large records, and
/// elements never move, so a reader may hold references while others are
/// appended (under the owner's lock). Recording a trace appends one record
/// per command; the allocator's work is most of what that would cost.
template <class T>
class RecordLog {
 public:
  void push_back(T value) {
    if (chunks_.empty() || chunks_.back().size() == chunk_capacity) {
      chunks_.emplace_back();
      chunks_.back().reserve(chunk_capacity);
    }
    chunks_.back().push_back(std::move(value));
    ++size_;
  }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return chunks_[i / chunk_capacity][i % chunk_capacity]; }
  const T& operator[](std::size_t i) const { return chunks_[i / chunk_capacity][i % chunk_capacity]; }

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
  std::vector<std::vector<T>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace alloy::detail
