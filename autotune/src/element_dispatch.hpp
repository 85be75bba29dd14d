// Calls a generic function with the C++ type of a harness element type.
#pragma once

#include <cstdint>
#include <type_traits>

#include "alloy/autotune/host_array.hpp"

namespace alloy::autotune::detail {

/// `function(T{})` with T the element type's C++ type; returns its result.
template <class Function>
decltype(auto) with_element_type(ElementType type, Function&& function) {
  switch (type) {
    case ElementType::f32: return function(float{});
    case ElementType::f64: return function(double{});
    case ElementType::i8: return function(std::int8_t{});
    case ElementType::u8: return function(std::uint8_t{});
    case ElementType::i16: return function(std::int16_t{});
    case ElementType::u16: return function(std::uint16_t{});
    case ElementType::i32: return function(std::int32_t{});
    case ElementType::u32: return function(std::uint32_t{});
    case ElementType::i64: return function(std::int64_t{});
    case ElementType::u64: break;
  }
  return function(std::uint64_t{});
}

}  // namespace alloy::autotune::detail
