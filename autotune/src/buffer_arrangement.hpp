// How one harness buffer lies on the device under a configuration (internal
// to the evaluator): as it is, rearranged in an element order, or a layout
// argument's records or matrix packed from the host's layout.
#pragma once

#include <optional>
#include <string>

#include "alloy/autotune/element_order.hpp"
#include "alloy/autotune/harness.hpp"

namespace alloy::autotune::detail {

class BufferArrangement {
 public:
  /// The contents as they are.
  BufferArrangement() = default;
  /// How `configuration` arranges buffer `buffer` of `target`, whose rows
  /// (for an element order) are `row_length` elements long.
  BufferArrangement(const TuningTarget& target, std::size_t buffer, std::size_t row_length,
                    const Configuration& configuration);

  /// Names the arrangement: two with one key lay the contents out alike.
  /// Empty for the contents as they are.
  const std::string& key() const { return key_; }
  /// Why `contents` cannot be arranged so (sizes that are not whole rows or
  /// blocks); nothing when they can.
  std::optional<std::string> problem(const HostArray& contents) const;
  /// Bytes the device buffer needs for `contents` arranged so.
  std::size_t device_bytes(const HostArray& contents) const;
  /// `contents` as they lie on the device.
  HostArray arrange(const HostArray& contents) const;
  /// Device bytes put back as `contents` lie: what the layout leaves out
  /// (host fields no kernel names) is taken from `contents`.
  HostArray restore(const HostArray& device, const HostArray& contents) const;

  /// How the host holds a layout argument's contents, and where the
  /// configuration puts them: set for buffers with a host layout only.
  const HostLayout* host() const { return host_ ? &*host_ : nullptr; }
  const RecordPlacement* record_placement() const { return record_ ? &*record_ : nullptr; }
  const MatrixPlacement* matrix_placement() const { return matrix_ ? &*matrix_ : nullptr; }

 private:
  std::string key_;
  std::size_t row_length_ = 1;
  std::optional<ElementOrder> order_;
  std::optional<HostLayout> host_;
  std::optional<RecordPlacement> record_;
  std::optional<MatrixPlacement> matrix_;
};

/// Throws InvalidArgument when a buffer with a host layout is not one of the
/// kernel's layout arguments, or its layout does not fit the argument.
void check_host_layout(const TuningTarget& target, std::size_t buffer);

}  // namespace alloy::autotune::detail
