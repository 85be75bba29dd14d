// A host reference from a function in a shared library, for manifests.
#pragma once

#include <filesystem>
#include <string>

#include "alloy/autotune/harness.hpp"

namespace alloy::autotune::detail {

/// Opens `library` now and finds `function` (see host_reference_abi.h);
/// throws InvalidArgument saying which is missing. The library stays open
/// while the returned reference, or a copy of it, lives. Calling it throws
/// Error with the function's message when the function reports a failure.
HostReference load_shared_reference(const std::filesystem::path& library, const std::string& function);

}  // namespace alloy::autotune::detail
