// 2D arrays on a device: row- and column-major with padded pitches, square
// tiles, their kernel defines, and the copies between them and the host's.
#include <algorithm>
#include <cstring>

#include "alloy/dialect.hpp"
#include "alloy/error.hpp"
#include "alloy/layout.hpp"
#include "layout_arithmetic.hpp"

namespace alloy {
namespace {

using layout_detail::positive_after;
using layout_detail::round_up;

std::string matrix_text(const HostMatrix& host) {
  return std::to_string(host.rows) + " x " + std::to_string(host.columns) + " matrix";
}

// Where the host keeps element (row, column).
std::size_t host_index(const HostMatrix& host, std::size_t row, std::size_t column) {
  const std::size_t pitch = host.line_pitch();
  return host.column_major ? column * pitch + row : row * pitch + column;
}

void check_spans(const HostMatrix& host, std::size_t host_bytes, const MatrixPlacement& placement,
                 std::size_t device_bytes) {
  host.validate();
  if (host.element != placement.element()) {
    throw InvalidArgument(matrix_text(host) + ": host elements are " + std::string(to_string(host.element)) +
                          ", the device layout's " + std::string(to_string(placement.element())));
  }
  const std::size_t element = size_of(host.element);
  if (host_bytes < host.elements() * element) {
    throw InvalidArgument(matrix_text(host) + " needs " + std::to_string(host.elements() * element) +
                          " host bytes, the span has " + std::to_string(host_bytes));
  }
  const std::size_t needed = placement.elements(host.rows, host.columns) * element;
  if (device_bytes < needed) {
    throw InvalidArgument(matrix_text(host) + " in " + placement.layout().to_string() + " needs " +
                          std::to_string(needed) + " device bytes, the span has " + std::to_string(device_bytes));
  }
}

// Calls copy(host byte offset, device byte offset) for every element, row by
// row so that row-major host arrays are read in order.
template <class Copy>
void for_each_element(const HostMatrix& host, const MatrixPlacement& placement, Copy copy) {
  const std::size_t element = size_of(host.element);
  for (std::size_t r = 0; r < host.rows; ++r) {
    for (std::size_t c = 0; c < host.columns; ++c) {
      copy(host_index(host, r, c) * element, placement.index(r, c, host.rows, host.columns) * element);
    }
  }
}

}  // namespace

std::optional<MatrixLayout> MatrixLayout::parse(std::string_view text) {
  if (text == "row_major") return MatrixLayout{Kind::row_major, 1, 1};
  if (text == "column_major") return MatrixLayout{Kind::column_major, 1, 1};
  if (const auto pad = positive_after(text, "padded:")) return MatrixLayout{Kind::row_major, *pad, 1};
  if (const auto pad = positive_after(text, "column_padded:")) return MatrixLayout{Kind::column_major, *pad, 1};
  if (const auto pad = positive_after(text, "odd_padded:")) return MatrixLayout{Kind::row_major, *pad, 1, true};
  if (const auto pad = positive_after(text, "column_odd_padded:")) {
    return MatrixLayout{Kind::column_major, *pad, 1, true};
  }
  if (const auto tile = positive_after(text, "tiles:")) return MatrixLayout{Kind::tiles, 1, *tile};
  return std::nullopt;
}

std::string MatrixLayout::to_string() const {
  const std::string padding = odd ? "odd_padded:" + std::to_string(pad) : "padded:" + std::to_string(pad);
  const bool packed = pad == 1 && !odd;
  switch (kind) {
    case Kind::row_major: return packed ? "row_major" : padding;
    case Kind::column_major: return packed ? "column_major" : "column_" + padding;
    case Kind::tiles: return "tiles:" + std::to_string(tile);
  }
  return "row_major";
}

std::size_t MatrixLayout::pitch(std::size_t length) const {
  const std::size_t pads = (length + pad - 1) / pad;
  return (odd ? pads | 1 : pads) * pad;
}

std::size_t HostMatrix::elements() const {
  const std::size_t lines = column_major ? columns : rows;
  return lines == 0 ? 0 : (lines - 1) * line_pitch() + line_length();
}

void HostMatrix::validate() const {
  const std::size_t length = line_length();
  if (pitch != 0 && pitch < length) {
    throw InvalidArgument(std::to_string(rows) + " x " + std::to_string(columns) + " matrix: a pitch of " +
                          std::to_string(pitch) + " elements is shorter than a " +
                          (column_major ? "column" : "row") + " of " + std::to_string(length));
  }
}

MatrixPlacement::MatrixPlacement(ScalarType element, MatrixLayout layout) : element_(element), layout_(layout) {
  if (layout_.pad == 0 || layout_.tile == 0) {
    throw InvalidArgument("matrix layout " + layout_.to_string() + ": pad and tile must be at least 1");
  }
}

std::pair<std::size_t, std::size_t> MatrixPlacement::padded_extent(std::size_t rows, std::size_t columns) const {
  switch (layout_.kind) {
    case MatrixLayout::Kind::row_major: return {rows, layout_.pitch(columns)};
    case MatrixLayout::Kind::column_major: return {layout_.pitch(rows), columns};
    case MatrixLayout::Kind::tiles: return {round_up(rows, layout_.tile), round_up(columns, layout_.tile)};
  }
  return {rows, columns};
}

std::size_t MatrixPlacement::elements(std::size_t rows, std::size_t columns) const {
  const auto [padded_rows, padded_columns] = padded_extent(rows, columns);
  return padded_rows * padded_columns;
}

std::size_t MatrixPlacement::index(std::size_t row, std::size_t column, std::size_t rows, std::size_t columns) const {
  switch (layout_.kind) {
    case MatrixLayout::Kind::row_major: return row * layout_.pitch(columns) + column;
    case MatrixLayout::Kind::column_major: return column * layout_.pitch(rows) + row;
    case MatrixLayout::Kind::tiles: {
      const std::size_t tile = layout_.tile;
      const std::size_t tiles_across = (columns + tile - 1) / tile;
      return (row / tile * tiles_across + column / tile) * tile * tile + row % tile * tile + column % tile;
    }
  }
  return 0;
}

std::string MatrixPlacement::defines(std::string_view parameter, std::string_view rows,
                                     std::string_view columns) const {
  for (std::string_view name : {parameter, rows, columns}) {
    if (!is_identifier(name)) {
      throw InvalidArgument("matrix layout: '" + std::string(name) + "' must name a kernel parameter");
    }
  }
  const std::string prefix = " -DALLOY_" + std::string(parameter) + "_";
  const std::string options = prefix + "ORDER=" + std::to_string(static_cast<int>(layout_.kind)) + prefix +
                              "PAD=" + std::to_string(layout_.pad) + prefix + "TILE=" + std::to_string(layout_.tile) +
                              prefix + "ODD=" + (layout_.odd ? "1" : "0") + prefix + "ROWS=" + std::string(rows) +
                              prefix + "COLUMNS=" + std::string(columns);
  return options.substr(1);
}

void pack_matrix(const HostMatrix& host, std::span<const std::byte> matrix, const MatrixPlacement& placement,
                 std::span<std::byte> device) {
  check_spans(host, matrix.size(), placement, device.size());
  const std::size_t element = size_of(host.element);
  std::fill_n(device.begin(), placement.elements(host.rows, host.columns) * element, std::byte{0});
  for_each_element(host, placement, [&](std::size_t host_at, std::size_t device_at) {
    std::memcpy(device.data() + device_at, matrix.data() + host_at, element);
  });
}

void unpack_matrix(const MatrixPlacement& placement, std::span<const std::byte> device, const HostMatrix& host,
                   std::span<std::byte> matrix) {
  check_spans(host, matrix.size(), placement, device.size());
  const std::size_t element = size_of(host.element);
  for_each_element(host, placement, [&](std::size_t host_at, std::size_t device_at) {
    std::memcpy(matrix.data() + host_at, device.data() + device_at, element);
  });
}

}  // namespace alloy
