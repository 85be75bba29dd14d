// Runtime start-up: load backends, gather their devices, open the compile cache.
#include "alloy/runtime.hpp"

#include "plugin_loader.hpp"

namespace alloy {

Runtime::Runtime() : Runtime(RuntimeOptions{}) {}

Runtime::Runtime(const RuntimeOptions& options)
    : cache_(options.cache_dir.value_or(ProgramCache::default_dir())) {
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

}  // namespace alloy
