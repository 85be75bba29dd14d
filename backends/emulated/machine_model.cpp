// Reading ALLOY_EMULATED_DEVICES: presets, then checked key=value overrides.
#include "machine_model.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace alloy::emulation {
namespace {

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(separator, start), text.size());
    std::string part(text.substr(start, end - start));
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) parts.push_back(std::move(part));
    start = end + 1;
  }
  return parts;
}

std::string format_limit(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

/// One key=value pair, and the checks every number in it passes.
struct Field {
  const std::string& key;
  const std::string& value;

  [[noreturn]] void refuse(const std::string& why) const {
    throw std::invalid_argument("'" + key + "=" + value + "': " + why);
  }

  /// A finite number in [low, high], or in (low, high] where `low` itself
  /// is not allowed; `unit` says what it counts.
  double number(double low, double high, const char* unit, bool low_allowed = true) const {
    double parsed = 0.0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    const std::string range = std::string(unit) + " in " + (low_allowed ? "[" : "(") + format_limit(low) + ", " +
                              format_limit(high) + "]";
    if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(parsed)) {
      refuse("not a number; give " + range);
    }
    if (parsed < low || (!low_allowed && parsed == low) || parsed > high) refuse("out of range; give " + range);
    return parsed;
  }

  /// A finite number in (0, high].
  double positive(double high, const char* unit) const { return number(0.0, high, unit, false); }

  /// A whole number in [low, high].
  long long whole(long long low, long long high, const char* unit) const {
    const double parsed = number(static_cast<double>(low), static_cast<double>(high), unit);
    if (parsed != std::floor(parsed)) {
      refuse(std::string("not a whole number of ") + unit + "; give " + unit + " in [" +
             format_limit(static_cast<double>(low)) + ", " + format_limit(static_cast<double>(high)) + "]");
    }
    return static_cast<long long>(parsed);
  }

  /// Bytes with an optional K, M, G or T suffix, in [low, high] bytes;
  /// `range` says so in the user's terms ("from 1M to 16T").
  std::size_t bytes(std::size_t low, std::size_t high, const char* range) const {
    std::string_view digits = value;
    double scale = 1.0;
    if (!digits.empty()) {
      switch (digits.back()) {
        case 'K': case 'k': scale = 0x1p10; break;
        case 'M': case 'm': scale = 0x1p20; break;
        case 'G': case 'g': scale = 0x1p30; break;
        case 'T': case 't': scale = 0x1p40; break;
        default: break;
      }
      if (scale != 1.0) digits.remove_suffix(1);
    }
    const std::string give = std::string("give a whole number of bytes ") + range + " (K, M, G, T suffixes)";
    double parsed = 0.0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
    if (error != std::errc() || end != digits.data() + digits.size() || !std::isfinite(parsed)) {
      refuse("not a size; " + give);
    }
    const double count = parsed * scale;
    if (count < static_cast<double>(low) || count > static_cast<double>(high)) refuse("out of range; " + give);
    if (count != std::floor(count)) refuse("not a whole number of bytes; " + give);
    return static_cast<std::size_t>(count);
  }
};

constexpr double max_gigabytes_per_second = 1e5;  // 100 TB/s: beyond any link or memory
constexpr double max_microseconds = 1e6;          // a second per copy or launch
constexpr std::size_t max_memory_bytes = std::size_t{1} << 44;  // 16 TiB

/// A GPU's published figures, per direction for links, in bytes, bytes per
/// second, seconds and FLOP/s; docs/emulated.md gives each one's source.
struct GpuFigures {
  const char* name;
  Flavor flavor;
  double host_link;  ///< PCIe Gen5 x16 as measured, each way
  double peer_link;  ///< to another GPU of the node, each way
  std::size_t memory_bytes;
  double memory_bandwidth;
  unsigned copy_engines;
  unsigned compute_units;
  unsigned warp_width;
  std::size_t local_memory_bytes;
  double launch_latency;
  double fp32, fp64, fp16;
};

constexpr GpuFigures published_gpus[] = {
    // NVLink 4: 900 GB/s both ways; three copy engines (deviceQuery).
    {"h100", Flavor::cuda, 53e9, 450e9, std::size_t{81559} << 20, 3.35e12, 3, 132, 32, 48 << 10, 3e-6, 67e12, 34e12,
     989e12},
    {"h200", Flavor::cuda, 53e9, 450e9, std::size_t{143771} << 20, 4.8e12, 3, 132, 32, 48 << 10, 3e-6, 67e12, 34e12,
     989e12},
    // One Infinity Fabric link per pair of GPUs; two SDMA engines for the
    // host, others for peers.
    {"mi300x", Flavor::hip, 53e9, 64e9, std::size_t{192} << 30, 5.3e12, 3, 304, 64, 64 << 10, 3e-6, 163.4e12,
     81.7e12, 1307.4e12},
};

bool apply_preset(MachineModel& model, const std::string& name) {
  // PCIe generations: x16 links, one device or a node whose devices reach
  // each other through a PCIe switch at the link's speed.
  double pcie_gigabytes_per_second = 0.0;
  if (name == "pcie3") pcie_gigabytes_per_second = 12.0;
  if (name == "pcie4") pcie_gigabytes_per_second = 25.0;
  if (name == "pcie5") pcie_gigabytes_per_second = 50.0;
  if (pcie_gigabytes_per_second > 0.0) {
    model.preset = name;
    model.host_to_device_bytes_per_second = pcie_gigabytes_per_second * 1e9;
    model.device_to_host_bytes_per_second = pcie_gigabytes_per_second * 1e9;
    model.peer_bytes_per_second = pcie_gigabytes_per_second * 1e9;
    model.copy_engines = 2;
    return true;
  }
  for (const GpuFigures& gpu : published_gpus) {
    if (name != gpu.name) continue;
    model.preset = name;
    model.flavor = gpu.flavor;
    model.host_to_device_bytes_per_second = model.device_to_host_bytes_per_second = gpu.host_link;
    model.peer_bytes_per_second = gpu.peer_link;
    model.memory_bytes = gpu.memory_bytes;
    model.memory_bytes_per_second = gpu.memory_bandwidth;
    model.copy_engines = gpu.copy_engines;
    model.compute_units = gpu.compute_units;
    model.warp_width = gpu.warp_width;
    model.local_memory_bytes = gpu.local_memory_bytes;
    model.launch_latency_seconds = gpu.launch_latency;
    model.fp32_flops = gpu.fp32;
    model.fp64_flops = gpu.fp64;
    model.fp16_flops = gpu.fp16;
    return true;
  }
  return false;
}

constexpr const char* known_keys =
    "devices, flavor, h2d, d2h, bandwidth, peer, memory_bandwidth, pageable, register, latency, launch, jitter, "
    "item, copy_engines, memory, compute_units, fp32, fp64, fp16, data, storage";

void apply(MachineModel& model, const Field& field) {
  const std::string& key = field.key;
  const auto gigabytes = [&] { return field.positive(max_gigabytes_per_second, "GB/s") * 1e9; };
  const auto microseconds = [&] { return field.number(0.0, max_microseconds, "microseconds") * 1e-6; };
  const auto teraflops = [&] { return field.number(0.0, 1e6, "TFLOP/s") * 1e12; };
  if (key == "devices") {
    model.devices = static_cast<int>(field.whole(1, max_emulated_devices, "devices"));
  } else if (key == "flavor") {
    if (field.value != "cuda" && field.value != "hip") field.refuse("flavor is cuda or hip");
    model.flavor = field.value == "cuda" ? Flavor::cuda : Flavor::hip;
  } else if (key == "h2d") {
    model.host_to_device_bytes_per_second = gigabytes();
  } else if (key == "d2h") {
    model.device_to_host_bytes_per_second = gigabytes();
  } else if (key == "bandwidth") {
    model.host_to_device_bytes_per_second = model.device_to_host_bytes_per_second = gigabytes();
  } else if (key == "peer") {
    model.peer_bytes_per_second = field.number(0.0, max_gigabytes_per_second, "GB/s (0: through the host)") * 1e9;
  } else if (key == "memory_bandwidth") {
    model.memory_bytes_per_second = gigabytes();
  } else if (key == "register") {
    model.register_bytes_per_second = gigabytes();
  } else if (key == "pageable") {
    model.pageable_fraction = field.positive(1.0, "a fraction of the bandwidth");
  } else if (key == "latency") {
    model.transfer_latency_seconds = microseconds();
  } else if (key == "launch") {
    model.launch_latency_seconds = microseconds();
  } else if (key == "jitter") {
    model.jitter_seconds = microseconds();
  } else if (key == "item") {
    model.seconds_per_item = field.number(0.0, 1e6, "nanoseconds per work-item") * 1e-9;
  } else if (key == "copy_engines") {
    model.copy_engines = static_cast<unsigned>(field.whole(1, 3, "copy engines"));
  } else if (key == "memory") {
    model.memory_bytes = field.bytes(std::size_t{1} << 20, max_memory_bytes, "from 1M to 16T");
  } else if (key == "compute_units") {
    model.compute_units = static_cast<unsigned>(field.whole(1, 100000, "compute units"));
  } else if (key == "fp32") {
    model.fp32_flops = teraflops();
  } else if (key == "fp64") {
    model.fp64_flops = teraflops();
  } else if (key == "fp16") {
    model.fp16_flops = teraflops();
  } else if (key == "storage") {
    model.storage_bytes_per_second =
        field.number(0.0, max_gigabytes_per_second, "GB/s (0: no GPUDirect Storage)") * 1e9;
  } else if (key == "data") {
    if (field.value != "0" && field.value != "1") field.refuse("data is 1 or 0");
    model.moves_data = field.value == "1";
  } else {
    throw std::invalid_argument("unknown key '" + key + "' (known: " + known_keys + ")");
  }
}

}  // namespace

MachineModel parse_machine_model(std::string_view spec) {
  MachineModel model;
  const std::vector<std::string> parts = split(spec, ',');
  if (parts.empty()) {
    throw std::invalid_argument("empty; give a preset (pcie3, pcie4, pcie5, h100, h200, mi300x) or key=value pairs");
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::size_t equals = parts[i].find('=');
    if (equals == std::string::npos) {
      if (i == 0 && apply_preset(model, parts[i])) continue;
      throw std::invalid_argument("'" + parts[i] + "' is neither a preset (pcie3, pcie4, pcie5, h100, h200, "
                                  "mi300x; first only) nor key=value");
    }
    const std::string key = parts[i].substr(0, equals);
    const std::string value = parts[i].substr(equals + 1);
    apply(model, Field{key, value});
  }
  return model;
}

std::string MachineModel::describe() const {
  char text[400];
  std::snprintf(text, sizeof text,
                "%s (%s rules): %.1f GB/s host-to-device, %.1f GB/s device-to-host (x%.2f unpinned), "
                "%s, %u copy engine%s, %.1f us per copy, %.1f us per launch, %.3g ns per work-item, "
                "%.0f GB/s memory, %zu MiB%s%s",
                preset.c_str(), flavor == Flavor::cuda ? "CUDA" : "HIP", host_to_device_bytes_per_second * 1e-9,
                device_to_host_bytes_per_second * 1e-9, pageable_fraction,
                peer_bytes_per_second > 0
                    ? (std::to_string(static_cast<long long>(peer_bytes_per_second * 1e-9)) + " GB/s between devices")
                          .c_str()
                    : "peer copies through the host",
                copy_engines, copy_engines == 1 ? "" : "s", transfer_latency_seconds * 1e6,
                launch_latency_seconds * 1e6, seconds_per_item * 1e9, memory_bytes_per_second * 1e-9,
                memory_bytes >> 20, jitter_seconds > 0 ? ", random extra delays" : "",
                moves_data ? "" : ", time only (data=0)");
  std::string described = text;
  if (storage_bytes_per_second > 0) {
    std::snprintf(text, sizeof text, ", GPUDirect Storage at %.1f GB/s", storage_bytes_per_second * 1e-9);
    described += text;
  }
  return described;
}

}  // namespace alloy::emulation
