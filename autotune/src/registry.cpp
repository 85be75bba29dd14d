// The tuning targets a program registers, after alloy's own.
#include <mutex>

#include "alloy/autotune/registry.hpp"

namespace alloy::autotune {
namespace {

std::mutex registry_mutex;
std::vector<TuningTarget>& registry() {
  static std::vector<TuningTarget> targets;
  return targets;
}

}  // namespace

void register_target(TuningTarget target) {
  target.kernel.validate();
  std::lock_guard lock(registry_mutex);
  registry().push_back(std::move(target));
}

std::vector<TuningTarget> registered_targets() {
  std::vector<TuningTarget> targets = builtin_targets();
  std::lock_guard lock(registry_mutex);
  targets.insert(targets.end(), registry().begin(), registry().end());
  return targets;
}

}  // namespace alloy::autotune
