// A tunable kernel's configuration, checked, built and checked again.
#include "alloy/configured_kernel.hpp"

#include <string>

#include "alloy/error.hpp"

namespace alloy {

ConfiguredKernel configure(Device& device, const TunableKernel& kernel, const Configuration& configuration,
                           const Extent& problem, const BuildProgram& build) {
  // A profile's entries are checked by its lookup; the defaults and a
  // tuner's candidates are not, and a kernel without bounds checks must not
  // run a problem they do not fit.
  if (auto why = check_configuration(kernel, configuration, problem, DeviceLimits::of(device.info()))) {
    throw InvalidArgument(kernel.name + " on " + device.label() + ": configuration " +
                          describe(kernel, configuration) + " does not fit problem " + problem.to_string() + ": it " +
                          *why + "; choose a problem size the kernel's constraints allow, or another configuration");
  }
  ConfiguredKernel configured{configured_source(kernel, configuration), nullptr, nullptr,
                              configured_launch(kernel, configuration, problem)};
  configured.program = build(configured.source);
  configured.kernel = configured.program->kernel(kernel.kernel_name);
  const std::size_t group_size = configured.range.local ? configured.range.local->count() : 1;
  const std::size_t allowed = configured.kernel->attributes().max_work_group_size;
  if (allowed != 0 && group_size > allowed) {
    throw WorkGroupTooLarge(kernel.name + " on " + device.label() + ": configuration " +
                            describe(kernel, configuration) + " needs work-groups of " + std::to_string(group_size) +
                            "; the compiled kernel allows " + std::to_string(allowed) +
                            ": choose a configuration with smaller work-groups, or tune this device again");
  }
  return configured;
}

}  // namespace alloy
