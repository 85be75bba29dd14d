// Slices of a launch range.
#include "alloy/launch_range.hpp"

#include "alloy/error.hpp"

namespace alloy {

std::size_t LaunchRange::groups(unsigned dimension) const {
  const std::size_t local_size = local ? (*local)[dimension] : 0;
  return local_size == 0 ? 0 : global[dimension] / local_size;
}

LaunchRange LaunchRange::slice(unsigned dimension, std::size_t first, std::size_t count) const {
  if (!local || dimension >= global.dimensions || count == 0 || first + count > groups(dimension)) {
    throw InvalidArgument("slice of launch range " + global.to_string() + ": work-groups [" + std::to_string(first) +
                          ", " + std::to_string(first + count) + ") along dimension " + std::to_string(dimension) +
                          (local ? " are not within its " + std::to_string(groups(dimension))
                                 : " need a local size; a range without one has no fixed work-groups"));
  }
  LaunchRange part = *this;
  part.global.size[dimension] = count * (*local)[dimension];
  part.first_group[dimension] += first;
  return part;
}

}  // namespace alloy
