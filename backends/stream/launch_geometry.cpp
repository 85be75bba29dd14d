// Choosing a CUDA/HIP grid and block for a launch range.
#include "launch_geometry.hpp"

#include <algorithm>
#include <cmath>

#include "alloy/error.hpp"

namespace alloy::stream {
namespace {

/// The block size without a reason to prefer another: large enough to fill
/// a multiprocessor with a few blocks, small enough to leave the scheduler
/// room (the figure NVIDIA's and AMD's guides start from).
constexpr std::size_t preferred_block = 256;

const char* axis(unsigned d) { return d == 0 ? "x" : d == 1 ? "y" : "z"; }

/// Among the divisors of `extent` up to `most` that keep the grid within
/// `groups`, the smallest; 0 when none does.
std::size_t smallest_fitting_divisor(std::size_t extent, std::size_t most, std::size_t groups) {
  for (std::size_t candidate = 1; candidate <= std::min(extent, most); ++candidate) {
    if (extent % candidate == 0 && extent / candidate <= groups) return candidate;
  }
  return 0;
}

/// The x block as choose_geometry describes; 0 when no divisor fits.
std::size_t best_x_divisor(std::size_t extent, std::size_t most, std::size_t groups, std::size_t other_threads,
                           unsigned warp) {
  // The usual case, without scanning up to a thousand candidates per launch:
  // 256 fills every warp, and is the nearest to itself.
  if (other_threads == 1 && preferred_block % warp == 0 && preferred_block <= most &&
      extent % preferred_block == 0 && extent / preferred_block <= groups) {
    return preferred_block;
  }
  std::size_t best = 0;
  double best_use = -1.0;
  for (std::size_t candidate = 1; candidate <= std::min(extent, most); ++candidate) {
    if (extent % candidate != 0 || extent / candidate > groups) continue;
    const double use = lane_use(candidate * other_threads, warp);
    const auto distance = [](std::size_t size) {
      return size > preferred_block ? size - preferred_block : preferred_block - size;
    };
    // Lane use decides; among equals (within rounding), the nearest to 256.
    if (use > best_use + 1e-9 || (std::abs(use - best_use) <= 1e-9 && distance(candidate) < distance(best))) {
      best = candidate;
      best_use = use;
    }
  }
  return best;
}

std::string prefix(const std::function<std::string()>& what) { return what() + ": "; }

}  // namespace

LaunchLimits LaunchLimits::of(const DeviceInfo& device, std::size_t kernel_block_threads) {
  LaunchLimits limits;
  limits.kernel_block_threads = std::max<std::size_t>(1, kernel_block_threads);
  limits.block_dims = device.max_work_item_sizes;
  limits.grid_dims = device.max_group_counts;
  limits.warp = std::max(1u, device.sub_group_width.value_or(32));
  limits.work_items_per_dimension = device.max_work_items_per_dimension;
  return limits;
}

double lane_use(std::size_t threads, unsigned warp) {
  const std::size_t warps = (threads + warp - 1) / warp;
  return static_cast<double>(threads) / static_cast<double>(warps * warp);
}

LaunchGeometry choose_geometry(const LaunchRange& range, const LaunchLimits& limits,
                               const std::function<std::string()>& what) {
  for (unsigned d = 0; d < 3; ++d) {
    if (range.global[d] > limits.work_items_per_dimension) {
      throw InvalidArgument(prefix(what) + std::to_string(range.global[d]) + " work-items in dimension " + axis(d) +
                            " exceed the " + std::to_string(limits.work_items_per_dimension) +
                            " (grid x block) this API allows per dimension; fold the work into another "
                            "dimension or launch it in parts");
    }
  }
  std::array<std::size_t, 3> block{1, 1, 1};
  if (range.local) {
    for (unsigned d = 0; d < 3; ++d) block[d] = (*range.local)[d];
  } else {
    // y and z first, as small as their grid limits allow (65,535 on CUDA),
    // leaving the most threads of the kernel's budget to x.
    for (unsigned d : {2u, 1u}) {
      const std::size_t most = std::min(limits.block_dims[d], limits.kernel_block_threads / (block[1] * block[2]));
      block[d] = smallest_fitting_divisor(range.global[d], most, limits.grid_dims[d]);
      if (block[d] == 0) {
        throw InvalidArgument(prefix(what) + std::to_string(range.global[d]) + " work-items in dimension " +
                              axis(d) + " need more than the device's " + std::to_string(limits.grid_dims[d]) +
                              " blocks for every block size that divides them and fits the kernel's " +
                              std::to_string(limits.kernel_block_threads) +
                              " threads; give a local size, or swap this dimension with x");
      }
    }
    const std::size_t other = block[1] * block[2];
    const std::size_t most = std::min(limits.block_dims[0], limits.kernel_block_threads / other);
    block[0] = best_x_divisor(range.global[0], most, limits.grid_dims[0], other, limits.warp);
    if (block[0] == 0) {
      throw InvalidArgument(prefix(what) + std::to_string(range.global[0]) +
                            " work-items in dimension x need more than the device's " +
                            std::to_string(limits.grid_dims[0]) + " blocks for every block size that divides "
                            "them; give a local size");
    }
  }
  LaunchGeometry geometry;
  for (unsigned d = 0; d < 3; ++d) {
    const std::size_t groups = range.global[d] / block[d];
    if (groups > limits.grid_dims[d]) {
      throw InvalidArgument(prefix(what) + std::to_string(groups) + " work-groups in dimension " + axis(d) +
                            " exceed the device's " + std::to_string(limits.grid_dims[d]) +
                            "; use a larger local size or fold the work into fewer groups");
    }
    geometry.grid[d] = static_cast<unsigned>(groups);
    geometry.block[d] = static_cast<unsigned>(block[d]);
  }
  geometry.lane_use = lane_use(block[0] * block[1] * block[2], limits.warp);
  return geometry;
}

std::string tiny_block_advice(const LaunchRange& range, const LaunchGeometry& geometry, unsigned warp) {
  // A caller's local size is the caller's choice; a chosen one that leaves
  // half of each warp idle or more is worth a word, unless the whole launch
  // would not fill a warp anyway.
  if (range.local || geometry.lane_use > 0.5 || range.global.count() < warp) return {};
  const std::size_t threads = std::size_t{geometry.block[0]} * geometry.block[1] * geometry.block[2];
  return "blocks of " + std::to_string(threads) + (threads == 1 ? " work-item" : " work-items") +
         " (the largest that divide " +
         range.global.to_string() + " evenly) keep " + std::to_string(threads) + " of every " +
         std::to_string(warp) + " lanes busy, up to " + std::to_string(static_cast<int>(std::lround(1 / geometry.lane_use))) +
         "x slower; give a local size such as 256 and have the kernel skip work-items past the end, or use a "
         "length with a larger divisor";
}

}  // namespace alloy::stream
