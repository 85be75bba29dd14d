// Small arithmetic and parsing shared by the record and matrix layouts.
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>

namespace alloy::layout_detail {

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// The positive decimal that makes up the rest of `text` after `prefix`;
/// nothing for any other text ("aosoa:8" after "aosoa:" is 8).
inline std::optional<std::size_t> positive_after(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  std::size_t value = 0;
  const char* begin = text.data() + prefix.size();
  const char* end = text.data() + text.size();
  const auto [last, error] = std::from_chars(begin, end, value);
  if (error != std::errc{} || last != end || value == 0) return std::nullopt;
  return value;
}

}  // namespace alloy::layout_detail
