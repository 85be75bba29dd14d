// The contract between the runtime and a backend plugin library.
//
// A plugin is a shared library named liballoy_backend_<name>.so that exports
// the two functions below. The runtime loads it with dlopen, refuses it when
// the ABI version differs, and then owns the Platform it creates. The version
// is generated at build time from the interface headers (alloy/plugin_abi.hpp):
// a plugin built against another interface is refused, never loaded.
#pragma once

#include <cstdint>

#include "alloy/backend/device.hpp"
#include "alloy/plugin_abi.hpp"

extern "C" {
using alloy_plugin_abi_version_fn = std::uint32_t (*)();
/// Never throws: enumeration failures become Platform::unavailable_reason().
using alloy_plugin_create_fn = alloy::Platform* (*)();
}

/// Defines the plugin's exported entry points; `create_platform` is a
/// noexcept function returning a new Platform.
#define ALLOY_DEFINE_PLUGIN(create_platform)                                  \
  extern "C" __attribute__((visibility("default"))) std::uint32_t             \
  alloy_plugin_abi_version() {                                                \
    return ALLOY_PLUGIN_ABI_VERSION;                                          \
  }                                                                           \
  extern "C" __attribute__((visibility("default"))) alloy::Platform*          \
  alloy_plugin_create() noexcept {                                            \
    static_assert(noexcept(create_platform()), "create_platform must be noexcept"); \
    return create_platform();                                                 \
  }
