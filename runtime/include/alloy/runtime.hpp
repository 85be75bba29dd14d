// The entry point: loads backend plugins, lists devices, builds programs.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/program_cache.hpp"

namespace alloy {

/// One backend as the loader found it.
struct BackendStatus {
  std::string name;                  ///< "opencl", "cuda", "hip"
  std::filesystem::path library;     ///< empty when no library was found
  std::vector<Device*> devices;
  std::string reason;                ///< why there are no devices; else empty
};

struct RuntimeOptions {
  /// Compile cache folder; unset means $ALLOY_CACHE_DIR, else the XDG cache
  /// dir. An empty path keeps the cache in memory only.
  std::optional<std::filesystem::path> cache_dir;
};

/// Loads every backend plugin it finds (beside the runtime library, in the
/// install prefix, then in ALLOY_PLUGIN_PATH) and enumerates their devices.
/// A backend that fails to load is a reason in backends(), not an error.
///
///   alloy::Runtime runtime;
///   for (alloy::Device* device : runtime.devices()) { ... }
///
/// Thread-safe. Devices, queues, buffers and programs must not outlive it.
class Runtime {
 public:
  Runtime();
  explicit Runtime(const RuntimeOptions& options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// Every device of every backend, in backend order.
  const std::vector<Device*>& devices() const { return devices_; }
  const std::vector<BackendStatus>& backends() const { return backends_; }

  /// Builds `source` for `device`, or takes it from the compile cache.
  std::shared_ptr<Program> program(Device& device, const ProgramSource& source) {
    return cache_.get(device, source);
  }
  ProgramCache& program_cache() { return cache_; }

 private:
  std::vector<std::unique_ptr<Platform>> platforms_;
  std::vector<BackendStatus> backends_;
  std::vector<Device*> devices_;
  ProgramCache cache_;
};

}  // namespace alloy
