// A typed array in host memory: a tuning harness's buffer contents and
// expected outputs, whatever the kernel's element type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "alloy/error.hpp"
#include "alloy/kernel_args.hpp"

namespace alloy::autotune {

/// `count` elements of a scalar type (one a kernel parameter can have),
/// zero-initialised. view<T>() checks that T is the element type, so a host
/// reference cannot read counts as floats.
class HostArray {
 public:
  HostArray() = default;
  HostArray(ScalarType type, std::size_t count)
      : type_(type), count_(count), bytes_(count * size_of(type)) {}

  ScalarType type() const { return type_; }
  std::size_t size() const { return count_; }
  std::size_t size_bytes() const { return bytes_.size(); }
  std::byte* data() { return bytes_.data(); }
  const std::byte* data() const { return bytes_.data(); }

  template <class T>
  std::span<T> view() {
    check<T>();
    return {reinterpret_cast<T*>(bytes_.data()), count_};
  }
  template <class T>
  std::span<const T> view() const {
    check<T>();
    return {reinterpret_cast<const T*>(bytes_.data()), count_};
  }

 private:
  ScalarType type_ = ScalarType::f32;
  std::size_t count_ = 0;
  std::vector<std::byte> bytes_;

  template <class T>
  void check() const {
    if (scalar_type_of<std::remove_const_t<T>>() != type_) {
      throw InvalidArgument("a harness buffer holds " + std::string(to_string(type_)) +
                            " elements; view it with that type");
    }
  }
};

}  // namespace alloy::autotune
