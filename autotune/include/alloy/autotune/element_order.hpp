// How a harness buffer's elements lie in device memory when a tuning
// parameter chooses it: records as an array of structures, a structure of
// arrays or blocks of both; a matrix row- or column-major.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "alloy/autotune/host_array.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy::autotune {

/// The buffer is seen as rows of `row_length` elements: records of fields,
/// or a matrix's rows. Its canonical order, the one host references and
/// input files use, is row after row.
struct ElementOrder {
  enum class Kind {
    rows,     ///< canonical: an array of structures, a row-major matrix
    columns,  ///< column after column: a structure of arrays, a column-major matrix
    blocks,   ///< `block` rows at a time, column after column within each:
              ///< an array of structures of arrays
  };
  Kind kind = Kind::rows;
  std::size_t block = 1;  ///< rows per block, for blocks

  /// "rows", "columns" or "blocks:8"; nothing for anything else.
  static std::optional<ElementOrder> parse(const std::string& text);
  std::string to_string() const;
  bool operator==(const ElementOrder&) const = default;
};

/// A layout parameter's effect on one buffer: the order each of its values
/// puts the elements in.
struct BufferLayout {
  std::string parameter;             ///< a tuning parameter of the kernel
  ParameterProduct row_length;       ///< of problem dimensions and constants
  std::map<std::int64_t, ElementOrder> orders;  ///< one per value of the parameter
};

/// Why `canonical` cannot be put in `order` with rows of `row_length`
/// elements (the sizes do not divide); nothing when it can.
std::optional<std::string> order_fits(std::size_t elements, std::size_t row_length, ElementOrder order);

/// The elements of `canonical` in `order`; arrange_back undoes it. Both
/// expect order_fits() to hold.
HostArray arrange(const HostArray& canonical, std::size_t row_length, ElementOrder order);
HostArray arrange_back(const HostArray& arranged, std::size_t row_length, ElementOrder order);

}  // namespace alloy::autotune
