// A tunable kernel in one configuration, checked and built for one device
// and problem: what the runtime runs from a profile and the tuner measures.
#pragma once

#include <functional>
#include <memory>

#include "alloy/backend/device.hpp"
#include "alloy/backend/program.hpp"
#include "alloy/error.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/program_cache.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy {

/// configure()'s refusal of a configuration that built, but launches
/// work-groups larger than the compiled kernel allows: what a driver would
/// refuse at launch.
class WorkGroupTooLarge : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

struct ConfiguredKernel {
  ProgramSource source;              ///< with the configuration's defines in its options
  std::shared_ptr<Program> program;  ///< a tuner's pass kernels come from it too
  std::shared_ptr<Kernel> kernel;
  LaunchRange range;
};

/// Builds a program for the device: the compile cache's, or a tuner's that
/// compiles ahead. Throws CompileError when the source does not build.
using BuildProgram = std::function<std::shared_ptr<Program>(const ProgramSource& source)>;

/// Checks `configuration` against `problem` and the device's limits, builds
/// it with `build`, and checks the compiled kernel's work-group limit: the
/// one place both Runtime::tuned and the tuner do this. InvalidArgument
/// for a configuration that does not fit, WorkGroupTooLarge for one whose
/// work-groups the compiled kernel does not allow, the build's CompileError.
ConfiguredKernel configure(Device& device, const TunableKernel& kernel, const Configuration& configuration,
                           const Extent& problem, const BuildProgram& build);

}  // namespace alloy
