// Kernel lookup for kernel tasks.
#include "kernel_resolver.hpp"

namespace alloy::detail {

KernelResolver::Resolved KernelResolver::resolve(const KernelWork& work, Device& device,
                                                 std::size_t device_index) {
  Prepared& prepared = kernels_[{device_index, work.key}];
  if (!prepared.kernel) {
    if (const auto* tuned = std::get_if<TunedKernelCall>(&work.program)) {
      TunedKernel chosen = runtime_.tuned(device, *tuned->tunable, tuned->problem);
      prepared = {std::move(chosen.kernel), std::move(chosen.range), std::move(chosen.choice.configuration),
                  std::move(chosen.choice.staged_on_host), chosen.choice.match};
    } else {
      const auto& fixed = std::get<FixedKernel>(work.program);
      prepared.kernel = runtime_.program(device, *fixed.source)->kernel(work.kernel_name);
    }
  }
  const LaunchRange& range =
      prepared.range ? *prepared.range : std::get<FixedKernel>(work.program).range;
  return {*prepared.kernel, range, prepared.range ? &prepared.configuration : nullptr, prepared.staged_on_host,
          prepared.match};
}

}  // namespace alloy::detail
