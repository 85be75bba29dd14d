// The compiled kernel a kernel task runs on a device, and how it was chosen
// (internal to the runtime).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloy/runtime.hpp"
#include "graph/task.hpp"

namespace alloy::detail {

/// A kernel resolved for one device: the one record that placement, layout
/// views, capture, the trace and the Pipeline read about a tunable kernel's
/// configuration there; nothing else in the executor reads a profile.
struct ResolvedKernel {
  /// A tunable kernel's configuration, as Runtime::tuned chose and checked
  /// it (an entry that does not build or launch here gave way to the
  /// defaults).
  struct Tuned {
    TunedChoice choice;     ///< the configuration, its profile level and file, the time
    std::string described;  ///< describe(): "TS=16 WPT=4"
    std::string defines;    ///< what configured_source adds to the options
    LaunchRange range;      ///< for the call's problem

    /// The profile's time for the problem where it was measured on this
    /// device or its architecture: a time from another kind of device says
    /// little about this one.
    std::optional<double> seconds_here() const {
      const bool same_kind = choice.match == ProfileMatch::device || choice.match == ProfileMatch::other_driver ||
                             choice.match == ProfileMatch::architecture;
      return same_kind ? choice.seconds : std::nullopt;
    }
  };

  std::shared_ptr<Kernel> kernel;
  std::optional<Tuned> tuned;  ///< none for a fixed kernel

  /// A tunable kernel's range follows from its configuration; a fixed one
  /// launches over its task's.
  const LaunchRange& range(const KernelWork& work) const {
    return tuned ? tuned->range : std::get<FixedKernel>(work.program).range;
  }
};

/// Finds a kernel task's kernel on a device: a fixed kernel from the compile
/// cache, a tunable one with the configuration the device's tuning profile
/// chose (Runtime::tuned). Kept per (device, kernel key) because a Program
/// hands out kernels it does not keep, and looking one up in the compile
/// cache costs more than launching it. Not thread-safe.
class KernelResolver {
 public:
  explicit KernelResolver(Runtime& runtime) : runtime_(runtime) {}

  /// Compiles on first use; the compiler's errors are thrown (and the next
  /// call tries again).
  const ResolvedKernel& resolve(const KernelWork& work, Device& device, std::size_t device_index);
  /// Whether resolve() has prepared this kernel for this device already.
  bool prepared(const KernelWork& work, std::size_t device_index) const {
    return kernels_.contains({device_index, work.key});
  }

 private:
  Runtime& runtime_;
  std::map<std::pair<std::size_t, std::uint64_t>, ResolvedKernel> kernels_;
};

}  // namespace alloy::detail
