// The grid and block of a CUDA or HIP launch, from an OpenCL-style range.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "alloy/device_info.hpp"
#include "alloy/launch_range.hpp"

namespace alloy::stream {

/// What bounds a launch's shape on one device for one kernel.
struct LaunchLimits {
  std::size_t kernel_block_threads = 1024;  ///< the kernel's max threads per block
  std::array<std::size_t, 3> block_dims{1024, 1024, 64};
  std::array<std::size_t, 3> grid_dims{SIZE_MAX, SIZE_MAX, SIZE_MAX};
  unsigned warp = 32;  ///< threads the hardware schedules together
  /// Work-items (grid x block) per dimension, inclusive; HIP's is 2^32 - 1.
  std::uint64_t work_items_per_dimension = UINT64_MAX;

  static LaunchLimits of(const DeviceInfo& device, std::size_t kernel_block_threads);
};

struct LaunchGeometry {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  /// The share of each scheduled warp's lanes that do work, in (0, 1].
  double lane_use = 1.0;
};

/// The share of lanes a block of `threads` keeps busy: a partly filled warp
/// costs as much as a full one.
double lane_use(std::size_t threads, unsigned warp);

/// `range` as a grid and block. With the caller's local size, that block.
/// Without one, blocks must still tile the global size exactly (kernels
/// may not guard against work-items past the end), so each dimension's
/// block is a divisor of its extent: y and z take the smallest that keeps
/// their grid within the device's limits, x the one that keeps the most
/// warp lanes busy within what the kernel allows, the nearest to 256
/// among equals. InvalidArgument (naming what `what` says, the dimension
/// and the limit) for a shape the device cannot launch; `what` is called
/// only then, as launches are many.
LaunchGeometry choose_geometry(const LaunchRange& range, const LaunchLimits& limits,
                               const std::function<std::string()>& what);

/// Advice for people when a chosen block wastes most of each warp (a prime
/// length, say); empty when the launch is well shaped.
std::string tiny_block_advice(const LaunchRange& range, const LaunchGeometry& geometry, unsigned warp);

}  // namespace alloy::stream
