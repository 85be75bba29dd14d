// Runtime start-up: load backends, gather their devices, open the compile cache.
#include "alloy/runtime.hpp"

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
  if (choice.match != ProfileMatch::defaults) {
    // An entry made on another device, or edited by hand, may not build or
    // launch here: then the defaults serve, as if there were no profile.
    const detail::HandledErrorScope handled;
    try {
      return configure(device, kernel, problem, choice);
    } catch (const Error& error) {
      log_warning("profile " + choice.file.string() + ": the " + std::string(to_string(choice.match)) +
                  "-level entry for " + kernel.name + " does not work on " + device.label() + " (" +
                  error.what() + "); using the kernel's defaults");
    }
    choice = {kernel.default_configuration(), ProfileMatch::defaults, std::nullopt, {}, std::nullopt, {}};
  }
  return configure(device, kernel, problem, std::move(choice));
}

TunedKernel Runtime::configure(Device& device, const TunableKernel& kernel, const Extent& problem,
                               TunedChoice choice) {
  // Profile entries are checked by the lookup; the defaults are not, and a
  // kernel without bounds checks must not run a problem they do not fit.
  if (auto why = check_configuration(kernel, choice.configuration, problem, DeviceLimits::of(device.info()))) {
    throw InvalidArgument(kernel.name + " on " + device.label() + ": the " +
                          std::string(to_string(choice.match)) + " configuration (" +
                          describe(kernel, choice.configuration) + ") does not fit problem " +
                          problem.to_string() + ": it " + *why +
                          "; choose a problem size the kernel's constraints allow");
  }
  const ProgramSource source = configured_source(kernel, choice.configuration);
  std::shared_ptr<Kernel> compiled = program(device, source)->kernel(kernel.kernel_name);
  LaunchRange range = configured_launch(kernel, choice.configuration, problem);
  const std::size_t group_size = range.local ? range.local->count() : 1;
  if (compiled->attributes().max_work_group_size != 0 &&
      group_size > compiled->attributes().max_work_group_size) {
    throw InvalidArgument(kernel.name + " on " + device.label() + ": configuration " +
                          describe(kernel, choice.configuration) + " needs work-groups of " +
                          std::to_string(group_size) + "; the compiled kernel allows " +
                          std::to_string(compiled->attributes().max_work_group_size));
  }
  return {std::move(compiled), std::move(range), std::move(choice)};
}

}  // namespace alloy
