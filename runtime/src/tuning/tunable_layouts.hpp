// Internal to TunableKernel: its record and matrix arguments' layouts.
#pragma once

#include <string>

#include "alloy/tunable_kernel.hpp"

namespace alloy {

/// The -D options of every layout-tuned argument under `configuration`.
std::string layout_defines(const TunableKernel& kernel, const Configuration& configuration);
/// Throws InvalidArgument when a layout argument is inconsistent: an unknown
/// or unnamed layout parameter, a value that names no layout, bad names.
void validate_layouts(const TunableKernel& kernel);
/// The layout arguments as text, for TunableKernel::description_hash.
std::string layout_description(const TunableKernel& kernel);

}  // namespace alloy
