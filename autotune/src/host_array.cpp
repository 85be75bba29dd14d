// Element type names and sizes, and HostArray's element access for messages.
#include "alloy/autotune/host_array.hpp"

#include <cstdio>
#include <iterator>

#include "element_dispatch.hpp"

namespace alloy::autotune {
namespace {

// In ElementType's order.
constexpr std::string_view type_names[] = {"float", "double", "char", "uchar", "short",
                                           "ushort", "int", "uint", "long", "ulong"};

}  // namespace

std::string_view to_string(ElementType type) { return type_names[static_cast<std::size_t>(type)]; }

std::optional<ElementType> element_type_from_string(std::string_view text) {
  for (std::size_t i = 0; i < std::size(type_names); ++i) {
    if (type_names[i] == text) return static_cast<ElementType>(i);
  }
  return std::nullopt;
}

std::size_t size_of(ElementType type) {
  return detail::with_element_type(type, [](auto value) { return sizeof(value); });
}

bool is_integer(ElementType type) { return type != ElementType::f32 && type != ElementType::f64; }

double HostArray::number(std::size_t index) const {
  return detail::with_element_type(type_, [&](auto zero) {
    using T = decltype(zero);
    return static_cast<double>(view<T>()[index]);
  });
}

std::string HostArray::text(std::size_t index) const {
  return detail::with_element_type(type_, [&](auto zero) {
    using T = decltype(zero);
    const T value = view<T>()[index];
    if constexpr (std::is_floating_point_v<T>) {
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
      return std::string(text);
    } else {
      return std::to_string(value);
    }
  });
}

}  // namespace alloy::autotune
