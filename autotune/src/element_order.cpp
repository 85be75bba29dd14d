// Rearranging harness buffers between their canonical order and a layout's.
#include "alloy/autotune/element_order.hpp"

#include <charconv>
#include <cstring>

namespace alloy::autotune {
namespace {

// Where canonical element (row, column) lies in `order`, for `rows` rows of
// `length` elements.
std::size_t position(std::size_t row, std::size_t column, std::size_t rows, std::size_t length,
                     ElementOrder order) {
  switch (order.kind) {
    case ElementOrder::Kind::rows: return row * length + column;
    case ElementOrder::Kind::columns: return column * rows + row;
    case ElementOrder::Kind::blocks:
      return (row / order.block) * order.block * length + column * order.block + row % order.block;
  }
  return row * length + column;
}

// Copies every element between the canonical order and `order`, one way or
// the other, element by element whatever its type.
HostArray rearrange(const HostArray& from, std::size_t length, ElementOrder order, bool to_order) {
  HostArray to(from.type(), from.size());
  const std::size_t bytes = size_of(from.type());
  const std::size_t rows = from.size() / length;
  for (std::size_t row = 0; row < rows; ++row) {
    for (std::size_t column = 0; column < length; ++column) {
      const std::size_t canonical = row * length + column;
      const std::size_t arranged = position(row, column, rows, length, order);
      const std::size_t source = to_order ? canonical : arranged;
      const std::size_t target = to_order ? arranged : canonical;
      std::memcpy(to.data() + target * bytes, from.data() + source * bytes, bytes);
    }
  }
  return to;
}

}  // namespace

std::optional<ElementOrder> ElementOrder::parse(const std::string& text) {
  if (text == "rows") return ElementOrder{Kind::rows, 1};
  if (text == "columns") return ElementOrder{Kind::columns, 1};
  const std::string prefix = "blocks:";
  if (text.rfind(prefix, 0) != 0) return std::nullopt;
  std::size_t block = 0;
  const char* begin = text.data() + prefix.size();
  const char* end = text.data() + text.size();
  const auto [last, error] = std::from_chars(begin, end, block);
  if (error != std::errc{} || last != end || block == 0) return std::nullopt;
  return ElementOrder{Kind::blocks, block};
}

std::string ElementOrder::to_string() const {
  switch (kind) {
    case Kind::rows: return "rows";
    case Kind::columns: return "columns";
    case Kind::blocks: return "blocks:" + std::to_string(block);
  }
  return "rows";
}

std::optional<std::string> order_fits(std::size_t elements, std::size_t row_length, ElementOrder order) {
  if (row_length == 0 || elements % row_length != 0) {
    return std::to_string(elements) + " elements are not whole rows of " + std::to_string(row_length);
  }
  const std::size_t rows = elements / row_length;
  if (order.kind == ElementOrder::Kind::blocks && rows % order.block != 0) {
    return std::to_string(rows) + " rows are not whole blocks of " + std::to_string(order.block);
  }
  return std::nullopt;
}

HostArray arrange(const HostArray& canonical, std::size_t row_length, ElementOrder order) {
  if (order.kind == ElementOrder::Kind::rows) return canonical;
  return rearrange(canonical, row_length, order, true);
}

HostArray arrange_back(const HostArray& arranged, std::size_t row_length, ElementOrder order) {
  if (order.kind == ElementOrder::Kind::rows) return arranged;
  return rearrange(arranged, row_length, order, false);
}

}  // namespace alloy::autotune
