// Kernel lookup shared by all backends: one Kernel object per name, with its signature.
#include "alloy/backend/program.hpp"

#include "alloy/backend/device.hpp"

namespace alloy {

Kernel::Kernel(std::shared_ptr<Program> program, std::string name, KernelAttributes attributes)
    : program_(std::move(program)), name_(std::move(name)), attributes_(attributes) {}

std::shared_ptr<Kernel> Program::kernel(const std::string& name) {
  std::lock_guard lock(kernels_mutex_);
  if (std::shared_ptr<Kernel> existing = kernels_[name].lock()) return existing;
  std::shared_ptr<Kernel> created = create_kernel(name);
  created->signature_ = find_kernel_signature(source_.source, name);
  kernels_[name] = created;
  return created;
}

}  // namespace alloy
