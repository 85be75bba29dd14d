// Finds backend plugin libraries and loads them (internal to the runtime).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "alloy/backend/device.hpp"

namespace alloy::detail {

/// One backend: a loaded platform, or why there is none.
struct LoadedBackend {
  std::string name;
  std::filesystem::path library;
  std::unique_ptr<Platform> platform;
  std::string reason;
};

/// Loads the known backends (opencl, cuda, hip) from the first folder that has
/// them - beside the runtime library, the install prefix, ALLOY_PLUGIN_PATH -
/// plus any other plugin ALLOY_PLUGIN_PATH names. ALLOY_BACKENDS, when set,
/// names the only ones to open; the others are listed with that reason.
/// Never throws for a plugin that fails; that is recorded as its reason.
std::vector<LoadedBackend> load_backends();

/// The folder liballoy_runtime was loaded from; empty if unknown. Plugins
/// and alloy's trace library are looked for there first.
std::filesystem::path runtime_library_dir();

}  // namespace alloy::detail
