// The entry point: loads backend plugins, lists devices, builds programs.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloy/backend/device.hpp"
#include "alloy/profile.hpp"
#include "alloy/program_cache.hpp"
#include "alloy/tunable_kernel.hpp"

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
  /// Tuning profiles: a folder or one file; unset means
  /// ProfileStore::default_dir() ($ALLOY_PROFILE_DIR, else the XDG data dir).
  std::optional<std::filesystem::path> profiles;
};

/// A tunable kernel built with the configuration its profile chose for one
/// device and problem, and the range to launch it with.
struct TunedKernel {
  std::shared_ptr<Kernel> kernel;
  LaunchRange range;
  TunedChoice choice;  ///< the configuration and which profile level matched
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

  /// `kernel` configured for `device` and `problem` by the tuning profiles
  /// (see ProfileStore for the fallback chain; without a profile, the
  /// kernel's defaults), compiled or taken from the compile cache. A profile
  /// entry that does not build or launch here is skipped with a warning.
  /// Throws InvalidArgument when even the defaults do not fit `problem`
  /// (a size the kernel's constraints exclude), CompileError when the
  /// kernel's own source does not build.
  ///
  ///   auto triad = runtime.tuned(device, alloy::kernel_library::triad(), alloy::Extent(n));
  ///   queue->launch(*triad.kernel, triad.range, n, 3.0f, a, b, c);
  ///
  /// A kernel with matrix or record arguments wants them in the layouts the
  /// configuration chose (matrix_argument_bytes); a Graph converts them.
  TunedKernel tuned(Device& device, const TunableKernel& kernel, const Extent& problem);
  ProfileStore& profiles() { return profiles_; }

 private:

  std::vector<std::unique_ptr<Platform>> platforms_;
  std::vector<BackendStatus> backends_;
  std::vector<Device*> devices_;
  ProgramCache cache_;
  ProfileStore profiles_;
};

}  // namespace alloy
