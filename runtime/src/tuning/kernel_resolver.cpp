// Kernel lookup for kernel tasks.
#include "kernel_resolver.hpp"

namespace alloy::detail {
namespace {

ResolvedKernel resolved_tunable(Runtime& runtime, const TunedKernelCall& call, Device& device) {
  TunedKernel chosen = runtime.tuned(device, *call.tunable, call.problem);
  std::string described = describe(*call.tunable, chosen.choice.configuration);
  std::string defines = configured_source(*call.tunable, chosen.choice.configuration).options;
  ResolvedKernel::Tuned tuned{std::move(chosen.choice), std::move(described), std::move(defines),
                              std::move(chosen.range)};
  return {std::move(chosen.kernel), std::move(tuned)};
}

}  // namespace

const ResolvedKernel& KernelResolver::resolve(const KernelWork& work, Device& device, std::size_t device_index) {
  const std::pair<std::size_t, std::uint64_t> key{device_index, work.key};
  if (const auto found = kernels_.find(key); found != kernels_.end()) return found->second;
  ResolvedKernel resolved;
  if (const auto* tuned = std::get_if<TunedKernelCall>(&work.program)) {
    resolved = resolved_tunable(runtime_, *tuned, device);
  } else {
    resolved.kernel = runtime_.program(device, *std::get<FixedKernel>(work.program).source)->kernel(work.kernel_name);
  }
  return kernels_.emplace(key, std::move(resolved)).first->second;
}

}  // namespace alloy::detail
