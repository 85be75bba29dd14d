// The machine an emulated device models: bus bandwidths and latencies, copy
// engines, kernel time, memory (ALLOY_EMULATED_DEVICES).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace alloy::emulation {

/// Whose driver rules the emulation follows where CUDA's and HIP's differ
/// (docs/emulated.md lists them).
enum class Flavor { cuda, hip };

struct MachineModel {
  std::string preset = "custom";
  Flavor flavor = Flavor::cuda;
  int devices = 1;
  double host_to_device_bytes_per_second = 25e9;
  double device_to_host_bytes_per_second = 25e9;
  /// Between two devices, per direction; 0: no peer path, so a peer copy
  /// goes through host memory (device-to-host, then host-to-device).
  double peer_bytes_per_second = 25e9;
  /// Device memory: fills, copies within a device, and the default price of
  /// a kernel that streams its arguments' bytes.
  double memory_bytes_per_second = 1e12;
  /// Copies from or to host memory that is not page-locked (neither from
  /// allocate_host nor registered) run at this fraction of the bandwidth, as
  /// drivers stage them through a pinned buffer of their own.
  double pageable_fraction = 0.5;
  /// How fast registering the caller's memory page-locks it (the host waits).
  double register_bytes_per_second = 20e9;
  /// GPUDirect Storage: files read straight into device memory at this
  /// speed (storage=<GB/s>), CUDA flavor only; 0: cuFileDriverOpen refuses,
  /// as without the nvidia-fs module (docs/emulated.md).
  double storage_bytes_per_second = 0.0;
  double transfer_latency_seconds = 2e-6;  ///< per copy, on top of bytes ÷ bandwidth
  double launch_latency_seconds = 4e-6;    ///< per kernel, on top of its modelled time
  double seconds_per_item = 1e-11;         ///< a kernel without a model of its own
  /// Up to this much more, at random, per copy and launch: for tests that
  /// order must come from events, not from timing.
  double jitter_seconds = 0.0;
  /// 1: copies in both directions take turns on one engine; 2: each
  /// direction has its own; 3: peer copies have a third.
  unsigned copy_engines = 2;
  std::size_t memory_bytes = std::size_t{1} << 30;
  unsigned compute_units = 128;
  unsigned warp_width = 32;  ///< threads per warp (CUDA) or wavefront (HIP)
  std::size_t local_memory_bytes = 48 << 10;  ///< per block, statically declared
  /// Published peaks, reported with the device (0: not given).
  double fp32_flops = 0.0;
  double fp64_flops = 0.0;
  double fp16_flops = 0.0;
  /// Copies move bytes and kernels compute; off, only time passes (for
  /// benchmarks at bus speeds host memcpy cannot reach).
  bool moves_data = true;

  /// "h100 (CUDA rules): 55.0 GB/s host-to-device, ..."
  std::string describe() const;
};

/// The most devices ALLOY_EMULATED_DEVICES may ask for.
inline constexpr int max_emulated_devices = 64;

/// Parses a comma-separated list: an optional preset first (pcie3, pcie4,
/// pcie5, h100, h200, mi300x), then key=value pairs overriding it (the keys
/// and their ranges are in docs/emulated.md). Every number is checked:
/// finite, in its range, whole where it counts something. Throws
/// std::invalid_argument naming the part it refused and the limit.
MachineModel parse_machine_model(std::string_view spec);

}  // namespace alloy::emulation
