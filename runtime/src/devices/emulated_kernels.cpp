// The registry of kernel models for emulated devices.
#include "alloy/emulated_kernels.hpp"

#include <map>
#include <mutex>

namespace alloy::emulation {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, KernelModel, std::less<>> models;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

void define_kernel(const std::string& kernel_name, KernelModel model) {
  std::lock_guard lock(registry().mutex);
  registry().models[kernel_name] = std::move(model);
}

std::optional<KernelModel> find_kernel(const std::string& kernel_name) {
  std::lock_guard lock(registry().mutex);
  const auto found = registry().models.find(kernel_name);
  if (found == registry().models.end()) return std::nullopt;
  return found->second;
}

}  // namespace alloy::emulation
