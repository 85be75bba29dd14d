// The portable kernel dialect: the prelude the runtime puts before every source.
#pragma once

#include <string>
#include <cstdint>
#include <string_view>

#include "alloy/backend/program.hpp"

namespace alloy {

/// The prelude text (runtime/kernels/alloy_prelude.h): qualifiers, indices,
/// barriers, atomics and math that read the same in OpenCL C, CUDA and HIP.
std::string_view kernel_prelude();

/// What a backend hands its compiler.
struct ComposedSource {
  /// The prelude, one #define per -D option, then the source under a #line
  /// directive, so compiler messages give line numbers of the source file.
  std::string text;
  /// The options that are not -D defines, passed to the compiler unchanged.
  std::string compiler_options;
  /// Whether the kernels take the first-group parameters that CUDA and HIP
  /// launches pass after the declared ones (docs/kernels.md, "Slices"): all
  /// of the source's kernels do, or none where one is not declared plainly.
  bool takes_first_group = false;
  /// Whether the source's kernels may run as slices of their launch range.
  bool sliceable = false;
};

/// The source gets the parameters and entry statement that place a slice
/// (ALLOY_FIRST_GROUP_PARAMETERS, ALLOY_ENTER_KERNEL), which the prelude
/// spells per backend. Defines travel as #define lines rather than compiler
/// options because NVRTC and hiprtc apply -D options to their own built-in
/// headers too, where names such as T or B are template parameters. Throws InvalidArgument for a
/// -D option without a valid macro name.
ComposedSource compose_kernel_source(const ProgramSource& source);

/// Whether `name` can name a C identifier or macro: letters, digits and
/// underscores, not starting with a digit.
bool is_identifier(std::string_view name);

/// 64-bit FNV-1a: a stable hash for file names and source identities. Not for
/// security; callers that must not confuse two inputs also compare them.
std::uint64_t stable_hash(std::string_view text);

}  // namespace alloy
