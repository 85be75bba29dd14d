// Runtime start-up: load backends, gather their devices, open the compile cache.
#include "alloy/runtime.hpp"

#include "alloy/configured_kernel.hpp"
#include "alloy/error.hpp"
#include "alloy/log.hpp"
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
  const auto build = [&](const ProgramSource& source) { return program(device, source); };
  if (choice.match != ProfileMatch::defaults) {
    // An entry made on another device, or edited by hand, may not build or
    // launch here: then the defaults serve, as if there were no profile.
    const detail::HandledErrorScope handled;
    try {
      ConfiguredKernel configured = configure(device, kernel, choice.configuration, problem, build);
      return {std::move(configured.kernel), std::move(configured.range), std::move(choice)};
    } catch (const Error& error) {
      log_warning("profile " + choice.file.string() + ": the " + std::string(to_string(choice.match)) +
                  "-level entry for " + kernel.name + " does not work on " + device.label() + " (" +
                  error.what() + "); using the kernel's defaults");
    }
    choice = {kernel.default_configuration(), ProfileMatch::defaults, std::nullopt, {}, std::nullopt, {}};
  }
  ConfiguredKernel configured = configure(device, kernel, choice.configuration, problem, build);
  return {std::move(configured.kernel), std::move(configured.range), std::move(choice)};
}

}  // namespace alloy
