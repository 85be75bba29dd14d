// Gives a kernel source the parameters that place a slice of a launch
// (docs/kernels.md, "Slices"), and tells whether its kernels may be sliced.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace alloy::detail {

struct SliceParameters {
  /// The source, with ALLOY_FIRST_GROUP_PARAMETERS at the end of each
  /// kernel's parameter list and ALLOY_ENTER_KERNEL at the start of each
  /// kernel's body; unchanged when `kernels` is empty.
  std::string source;
  /// The kernels given the parameters: every kernel of the source, or none
  /// when one is not declared plainly (through a macro, say), since the
  /// prelude places the first group for the whole program.
  std::vector<std::string> kernels;
  /// Whether the kernels may run in slices: they have the parameters and the
  /// source reads nothing that a slice changes or that spans work-groups
  /// (get_num_groups, get_global_size, global_barrier, atomics, CUDA's own
  /// indices), nor says ALLOY_NO_SLICES.
  bool sliceable = false;
};

SliceParameters add_slice_parameters(std::string_view source);

}  // namespace alloy::detail
