// The machine an emulated device models: bus bandwidths and latencies, copy
// engines, kernel time, memory (ALLOY_EMULATED_DEVICES).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace alloy::emulation {

struct MachineModel {
  std::string preset = "custom";
  int devices = 1;
  double host_to_device_bytes_per_second = 25e9;
  double device_to_host_bytes_per_second = 25e9;
  /// Copies from or to host memory that is not page-locked (neither from
  /// allocate_host nor registered) run at this fraction of the bandwidth, as
  /// drivers stage them through a pinned buffer of their own.
  double pageable_fraction = 0.5;
  /// How fast registering the caller's memory page-locks it (the host waits).
  double register_bytes_per_second = 20e9;
  double transfer_latency_seconds = 2e-6;  ///< per copy, on top of bytes ÷ bandwidth
  double launch_latency_seconds = 4e-6;    ///< per kernel, on top of its modelled time
  double seconds_per_item = 1e-11;         ///< a kernel without a model of its own
  /// Up to this much more, at random, per copy and launch: for tests that
  /// order must come from events, not from timing.
  double jitter_seconds = 0.0;
  unsigned copy_engines = 2;  ///< 2: both directions at once; 1: they take turns
  std::size_t memory_bytes = std::size_t{1} << 30;
  unsigned compute_units = 128;
  /// Copies move bytes and kernels with a host model compute; off, only
  /// time passes (for benchmarks at bus speeds host memcpy cannot reach).
  bool moves_data = true;

  /// "pcie5: 50 GB/s host-to-device, 50 GB/s device-to-host, 2 copy engines, ..."
  std::string describe() const;
};

/// Parses a comma-separated list: an optional preset first (pcie3, pcie4,
/// pcie5), then key=value pairs overriding it: devices, h2d, d2h,
/// bandwidth (both ways), register (GB/s), pageable (fraction of the
/// bandwidth for memory not page-locked), latency, launch, jitter (µs), item
/// (ns per work-item), copy_engines (1 or 2), memory (bytes, K/M/G
/// suffixes), compute_units, data (1 or 0). Throws std::invalid_argument naming the
/// part it could not read.
MachineModel parse_machine_model(std::string_view spec);

}  // namespace alloy::emulation
