// Kernel compilation with hiprtc, shared by the HIP plugin and offline checks.
#pragma once

#include <string>

#include "stream_api.hpp"

namespace alloy::hip {

/// Compiles composed kernel source into an AMD code object for `architecture`
/// ("gfx90a", or a full target name such as "gfx90a:sramecc+:xnack-").
stream::CompileResult compile(const std::string& source, const std::string& name,
                              const std::string& options, const std::string& architecture);

/// "hiprtc 5.2".
std::string compiler_version();

}  // namespace alloy::hip
