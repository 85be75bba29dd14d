// How the caller's pageable memory should reach a device, decided by
// measuring the device's transfers (internal to the runtime).
#pragma once

#include <cstddef>
#include <string>

#include "alloy/backend/device.hpp"
#include "alloy/pipeline.hpp"

namespace alloy::detail {

/// Seconds each way of moving one sample of the caller's memory costs.
struct RouteTimes {
  std::size_t bytes = 0;
  double pageable_s = 0;  ///< a transfer from the memory as it is
  double pinned_s = 0;    ///< a transfer from page-locked memory
  double register_s = -1;  ///< page-locking the sample in place; < 0: the backend cannot
  double host_copy_s = 0;  ///< copying it into page-locked memory on the host
  /// The largest spread among each measurement's samples, (slowest −
  /// fastest) ÷ median: how far apart two routes must be to tell them apart
  /// on this machine now (a busy host spreads them).
  double noise = 0;

  /// "pageable 12.1 GB/s, pinned 24.0 GB/s, registering 20.3 GB/s, host copy 6.2 GB/s"
  std::string describe() const;
};

/// Measures the four on `device`, over the caller's `sample` (left as it was).
RouteTimes measure_routes(Device& device, std::byte* sample, std::size_t bytes);

/// The route predicted fastest per byte: direct costs a pageable transfer;
/// registered a pinned transfer plus registering once; staged a pinned
/// transfer or the host copy, whichever is slower, since host threads copy
/// while the device transfers. Direct unless another is faster by more than
/// 10% and by more than the measurements' noise.
HostMemoryRoute choose_route(const RouteTimes& times);

const char* route_name(HostMemoryRoute route);  ///< "direct", "registered", "staged"

}  // namespace alloy::detail
