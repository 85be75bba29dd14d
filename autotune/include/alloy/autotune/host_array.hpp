// A typed array in host memory: a tuning harness's buffer contents and
// expected outputs, whatever the kernel's element type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alloy/error.hpp"

namespace alloy::autotune {

/// Element types a harness buffer can hold, named as in OpenCL C.
enum class ElementType { f32, f64, i8, u8, i16, u16, i32, u32, i64, u64 };

/// "float", "double", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong".
std::string_view to_string(ElementType type);
/// Nothing for text that names no element type.
std::optional<ElementType> element_type_from_string(std::string_view text);
std::size_t size_of(ElementType type);
bool is_integer(ElementType type);

template <class T>
constexpr std::optional<ElementType> element_type_of() {
  if constexpr (std::is_same_v<T, float>) return ElementType::f32;
  else if constexpr (std::is_same_v<T, double>) return ElementType::f64;
  else if constexpr (std::is_same_v<T, std::int8_t>) return ElementType::i8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return ElementType::u8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return ElementType::i16;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return ElementType::u16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return ElementType::i32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ElementType::u32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ElementType::i64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return ElementType::u64;
  else return std::nullopt;
}

/// `count` elements of `type`, zero-initialised. view<T>() checks that T is
/// the element type, so a host reference cannot read counts as floats.
class HostArray {
 public:
  HostArray() = default;
  HostArray(ElementType type, std::size_t count)
      : type_(type), count_(count), bytes_(count * size_of(type)) {}

  ElementType type() const { return type_; }
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

  /// Element `index` as a double (exact for every integer up to 2^53), for messages.
  double number(std::size_t index) const;
  /// Element `index` as written in a message: integers exactly, floats with 9 digits.
  std::string text(std::size_t index) const;

 private:
  ElementType type_ = ElementType::f32;
  std::size_t count_ = 0;
  std::vector<std::byte> bytes_;

  template <class T>
  void check() const {
    if (element_type_of<std::remove_const_t<T>>() != type_) {
      throw InvalidArgument("a harness buffer holds " + std::string(to_string(type_)) +
                            " elements; view it with that type");
    }
  }
};

}  // namespace alloy::autotune
