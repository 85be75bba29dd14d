// Kernel compilation with NVRTC, shared by the CUDA plugin and offline checks.
#pragma once

#include <string>

#include "stream_api.hpp"

namespace alloy::cuda {

/// Compiles composed kernel source for `architecture` ("sm_90"): a cubin when
/// NVRTC knows the architecture, else PTX for the newest one it knows that is
/// not newer, which the driver then compiles at load time.
stream::CompileResult compile(const std::string& source, const std::string& name,
                              const std::string& options, const std::string& architecture);

/// "NVRTC 13.0".
std::string compiler_version();

struct CompilerRelease {
  int major = 0;
  int minor = 0;
};
/// NVRTC's release, as nvrtcVersion gives it.
CompilerRelease compiler_release();

}  // namespace alloy::cuda
