// What a device is and what it can take, as its backend reports it.
#pragma once

#include <array>
#include <cstdint>
#include <cstddef>
#include <optional>
#include <string>

namespace alloy {

/// What kind of processor a device is. A CPU device shares its cores with
/// the host, so host work (compiling, say) slows it down.
enum class DeviceType { gpu, cpu, accelerator };

struct DeviceInfo {
  std::string backend;         ///< "opencl", "cuda", "hip"
  DeviceType type = DeviceType::gpu;
  std::string name;
  std::string vendor;
  std::string architecture;    ///< e.g. "sm_90", "gfx90a", a CPU's target triple
  std::string driver_version;
  unsigned compute_units = 0;
  std::size_t max_work_group_size = 0;
  std::array<std::size_t, 3> max_work_item_sizes{};
  /// Work-groups per dimension a launch may have (CUDA's and HIP's grid
  /// limits); OpenCL sets no such limit and reports SIZE_MAX.
  std::array<std::size_t, 3> max_group_counts{SIZE_MAX, SIZE_MAX, SIZE_MAX};
  /// Work-items (work-groups x local size) per dimension a launch may have:
  /// HIP's 2^32 - 1; SIZE_MAX where only the group counts limit it.
  std::size_t max_work_items_per_dimension = SIZE_MAX;
  std::size_t local_memory_bytes = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t max_allocation_bytes = 0;
  /// Warp / wavefront / sub-group width, only where the API tells it.
  std::optional<unsigned> sub_group_width;
  /// Copies that can run at once with each other and with kernels: 2 when
  /// host-to-device and device-to-host transfers overlap (CUDA's and HIP's
  /// async engine count), 1 where they take turns or the API cannot tell.
  unsigned copy_engines = 1;
  /// Kernels may use double: always in CUDA and HIP, with cl_khr_fp64 in OpenCL.
  bool fp64 = true;
  /// Empty for real hardware; for an emulated device (ALLOY_EMULATED_DEVICES),
  /// the machine model it emulates, e.g. "pcie5: 50 GB/s each way, 2 copy engines".
  std::string emulation;

  /// Stable identity of this kind of device on this driver: keys profiles and
  /// compile caches. Two identical devices share a fingerprint; it holds
  /// backend, vendor, name, architecture, driver version and compute units.
  std::string fingerprint() const;
};

}  // namespace alloy
