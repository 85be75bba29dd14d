// The portable kernel dialect: the prelude the runtime puts before every source.
#pragma once

#include <string>
#include <cstdint>
#include <string_view>

namespace alloy {

/// The prelude text (runtime/kernels/alloy_prelude.h): qualifiers, indices,
/// barriers, atomics and math that read the same in OpenCL C, CUDA and HIP.
std::string_view kernel_prelude();

/// Prelude plus `source`, with a #line directive so compiler messages give
/// line numbers of `source` under `name`.
std::string compose_kernel_source(std::string_view name, std::string_view source);

/// 64-bit FNV-1a: a stable hash for file names and source identities. Not for
/// security; callers that must not confuse two inputs also compare them.
std::uint64_t stable_hash(std::string_view text);

}  // namespace alloy
