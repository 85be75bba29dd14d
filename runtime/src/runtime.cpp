// Runtime start-up: load backends, gather their devices, open the compile cache.
#include "alloy/runtime.hpp"

#include "plugin_loader.hpp"

namespace alloy {

Runtime::Runtime() : Runtime(RuntimeOptions{}) {}

Runtime::Runtime(const RuntimeOptions& options)
    : cache_(options.cache_dir.value_or(ProgramCache::default_dir())),
      profiles_(options.profiles.value_or(ProfileStore::default_dir())) {
  for (detail::LoadedBackend& loaded : detail::load_backends()) {
    BackendStatus status{loaded.name, loaded.library, {}, loaded.reason};
    if (loaded.platform) {
      status.devices = loaded.platform->devices();
      if (status.devices.empty() && status.reason.empty()) status.reason = "0 devices";
      devices_.insert(devices_.end(), status.devices.begin(), status.devices.end());
      platforms_.push_back(std::move(loaded.platform));
    }
    backends_.push_back(std::move(status));
  }
}

Runtime::~Runtime() = default;

TunedKernel Runtime::tuned(Device& device, const TunableKernel& kernel, const Extent& problem) {
  TunedChoice choice = profiles_.lookup(device.info(), kernel, problem);
  const ProgramSource source = configured_source(kernel, choice.configuration);
  std::shared_ptr<Kernel> compiled = program(device, source)->kernel(kernel.kernel_name);
  LaunchRange range = configured_launch(kernel, choice.configuration, problem);
  return {std::move(compiled), std::move(range), std::move(choice)};
}

}  // namespace alloy
