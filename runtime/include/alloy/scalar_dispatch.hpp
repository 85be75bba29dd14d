// Calls a generic function with the C++ type of a ScalarType.
#pragma once

#include <cstdint>

#include "alloy/kernel_args.hpp"

namespace alloy {

/// `function(T{})` with T the scalar type's C++ type; returns its result.
///
///   const std::size_t bytes = alloy::with_scalar_type(type, [](auto zero) { return sizeof zero; });
template <class Function>
decltype(auto) with_scalar_type(ScalarType type, Function&& function) {
  switch (type) {
    case ScalarType::f32: return function(float{});
    case ScalarType::f64: return function(double{});
    case ScalarType::i8: return function(std::int8_t{});
    case ScalarType::u8: return function(std::uint8_t{});
    case ScalarType::i16: return function(std::int16_t{});
    case ScalarType::u16: return function(std::uint16_t{});
    case ScalarType::i32: return function(std::int32_t{});
    case ScalarType::u32: return function(std::uint32_t{});
    case ScalarType::i64: return function(std::int64_t{});
    case ScalarType::u64: break;
  }
  return function(std::uint64_t{});
}

}  // namespace alloy
