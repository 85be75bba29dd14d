// The compiled kernel a kernel task runs on a device (internal to the runtime).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloy/runtime.hpp"
#include "task.hpp"

namespace alloy::detail {

/// Finds a kernel task's kernel and range on a device: a fixed kernel from
/// the compile cache, a tunable one with the configuration the device's
/// tuning profile chose (Runtime::tuned). Kept per (device, kernel key)
/// because a Program hands out kernels it does not keep, and looking one up
/// in the compile cache costs more than launching it. Not thread-safe.
class KernelResolver {
 public:
  explicit KernelResolver(Runtime& runtime) : runtime_(runtime) {}

  struct Resolved {
    Kernel& kernel;
    const LaunchRange& range;
    /// A tunable kernel's configuration on this device; nullptr for a fixed one.
    const Configuration* configuration;
    /// The layout arguments the profile converts on the host while staging
    /// (TunedChoice::staged_on_host); empty for a fixed kernel.
    const std::vector<std::string>& staged_on_host;
    /// Which profile level chose the configuration; a fixed kernel's is unused.
    ProfileMatch match;
  };
  /// Compiles on first use; the compiler's errors are thrown.
  Resolved resolve(const KernelWork& work, Device& device, std::size_t device_index);
  /// Whether resolve() has prepared this kernel for this device already.
  bool prepared(const KernelWork& work, std::size_t device_index) const {
    const auto found = kernels_.find({device_index, work.key});
    return found != kernels_.end() && found->second.kernel;
  }

 private:
  struct Prepared {
    std::shared_ptr<Kernel> kernel;
    /// A tunable kernel's range follows from the profile; a fixed kernel
    /// launches over its task's.
    std::optional<LaunchRange> range;
    Configuration configuration;
    std::vector<std::string> staged_on_host;
    ProfileMatch match = ProfileMatch::defaults;
  };

  Runtime& runtime_;
  std::map<std::pair<std::size_t, std::uint64_t>, Prepared> kernels_;
};

}  // namespace alloy::detail
