// Reading ALLOY_EMULATED_DEVICES.
#include "machine_model.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string>
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

double number(const std::string& key, const std::string& value) {
  double parsed = 0.0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc() || end != value.data() + value.size() || parsed < 0) {
    throw std::invalid_argument("'" + key + "=" + value + "' is not a non-negative number");
  }
  return parsed;
}

std::size_t bytes(const std::string& key, std::string value) {
  std::size_t scale = 1;
  if (!value.empty()) {
    switch (value.back()) {
      case 'K': case 'k': scale = std::size_t{1} << 10; break;
      case 'M': case 'm': scale = std::size_t{1} << 20; break;
      case 'G': case 'g': scale = std::size_t{1} << 30; break;
      default: break;
    }
    if (scale != 1) value.pop_back();
  }
  return static_cast<std::size_t>(number(key, value) * static_cast<double>(scale));
}

bool apply_preset(MachineModel& model, const std::string& name) {
  double gigabytes_per_second = 0.0;
  if (name == "pcie3") gigabytes_per_second = 12.0;
  if (name == "pcie4") gigabytes_per_second = 25.0;
  if (name == "pcie5") gigabytes_per_second = 50.0;
  if (gigabytes_per_second == 0.0) return false;
  model.preset = name;
  model.host_to_device_bytes_per_second = gigabytes_per_second * 1e9;
  model.device_to_host_bytes_per_second = gigabytes_per_second * 1e9;
  model.copy_engines = 2;
  return true;
}

void apply(MachineModel& model, const std::string& key, const std::string& value) {
  if (key == "devices") {
    model.devices = static_cast<int>(number(key, value));
  } else if (key == "h2d") {
    model.host_to_device_bytes_per_second = number(key, value) * 1e9;
  } else if (key == "d2h") {
    model.device_to_host_bytes_per_second = number(key, value) * 1e9;
  } else if (key == "bandwidth") {
    model.host_to_device_bytes_per_second = model.device_to_host_bytes_per_second = number(key, value) * 1e9;
  } else if (key == "latency") {
    model.transfer_latency_seconds = number(key, value) * 1e-6;
  } else if (key == "pageable") {
    model.pageable_fraction = number(key, value);
    if (model.pageable_fraction <= 0 || model.pageable_fraction > 1) {
      throw std::invalid_argument("pageable is a fraction of the bandwidth in (0, 1], not " + value);
    }
  } else if (key == "register") {
    model.register_bytes_per_second = number(key, value) * 1e9;
  } else if (key == "jitter") {
    model.jitter_seconds = number(key, value) * 1e-6;
  } else if (key == "launch") {
    model.launch_latency_seconds = number(key, value) * 1e-6;
  } else if (key == "item") {
    model.seconds_per_item = number(key, value) * 1e-9;
  } else if (key == "copy_engines") {
    const double engines = number(key, value);
    if (engines != 1 && engines != 2) throw std::invalid_argument("copy_engines must be 1 or 2, not " + value);
    model.copy_engines = static_cast<unsigned>(engines);
  } else if (key == "memory") {
    model.memory_bytes = bytes(key, value);
  } else if (key == "compute_units") {
    model.compute_units = static_cast<unsigned>(number(key, value));
  } else if (key == "data") {
    if (value != "0" && value != "1") throw std::invalid_argument("data must be 1 or 0, not " + value);
    model.moves_data = value == "1";
  } else {
    throw std::invalid_argument("unknown key '" + key +
                                "' (known: devices, h2d, d2h, bandwidth, pageable, register, latency, launch, jitter, item, "
                                "copy_engines, memory, compute_units, data)");
  }
}

}  // namespace

MachineModel parse_machine_model(std::string_view spec) {
  MachineModel model;
  const std::vector<std::string> parts = split(spec, ',');
  if (parts.empty()) throw std::invalid_argument("empty; give a preset (pcie3, pcie4, pcie5) or key=value pairs");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::size_t equals = parts[i].find('=');
    if (equals == std::string::npos) {
      if (i == 0 && apply_preset(model, parts[i])) continue;
      throw std::invalid_argument("'" + parts[i] + "' is neither a preset (pcie3, pcie4, pcie5; first only) "
                                  "nor key=value");
    }
    apply(model, parts[i].substr(0, equals), parts[i].substr(equals + 1));
  }
  if (model.devices < 1) throw std::invalid_argument("devices must be at least 1");
  if (model.host_to_device_bytes_per_second <= 0 || model.device_to_host_bytes_per_second <= 0 ||
      model.register_bytes_per_second <= 0) {
    throw std::invalid_argument("bandwidths must be above 0");
  }
  return model;
}

std::string MachineModel::describe() const {
  char text[320];
  std::snprintf(text, sizeof text,
                "%s: %.1f GB/s host-to-device, %.1f GB/s device-to-host (x%.2f unpinned), %u copy engine%s, "
                "%.1f us per copy, %.1f us per launch, %.3g ns per work-item, %zu MiB%s%s",
                preset.c_str(), host_to_device_bytes_per_second * 1e-9,
                device_to_host_bytes_per_second * 1e-9, pageable_fraction, copy_engines,
                copy_engines == 1 ? "" : "s",
                transfer_latency_seconds * 1e6, launch_latency_seconds * 1e6, seconds_per_item * 1e9,
                memory_bytes >> 20, jitter_seconds > 0 ? ", random extra delays" : "",
                moves_data ? "" : ", time only (data=0)");
  return text;
}

}  // namespace alloy::emulation
