// What a pipeline run's lanes did, against the best overlap could do.
#include "pipeline_report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace alloy::detail {
namespace {

std::string milliseconds(std::chrono::nanoseconds time) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(time.count()) * 1e-6);
  return text;
}

/// The shortest time the device's lanes allow, and the lane that sets it.
void bound(PipelineDeviceReport& device) {
  const bool both_directions_overlap = device.copy_engines >= 2;
  if (both_directions_overlap) {
    device.ideal = std::max({device.copy_in, device.compute, device.copy_out});
    device.bound_by = device.ideal == device.compute  ? "compute"
                      : device.ideal == device.copy_in ? "copy-in"
                                                       : "copy-out";
    return;
  }
  const std::chrono::nanoseconds copies = device.copy_in + device.copy_out;
  device.ideal = std::max(copies, device.compute);
  device.bound_by = device.compute >= copies ? "compute" : "copy-in + copy-out";
}

}  // namespace

PipelineReport summarize(const std::vector<CommandTime>& commands, std::chrono::nanoseconds wall,
                         const std::vector<Device*>& all, const std::vector<std::size_t>& devices) {
  PipelineReport report;
  report.wall = wall;
  for (std::size_t device : devices) {
    PipelineDeviceReport entry;
    entry.device = device;
    entry.label = all[device]->label();
    entry.copy_engines = all[device]->info().copy_engines;
    report.devices.push_back(std::move(entry));
  }
  for (const CommandTime& command : commands) {
    const auto found = std::find_if(report.devices.begin(), report.devices.end(),
                                    [&](const auto& entry) { return entry.device == command.device; });
    if (found == report.devices.end()) continue;
    switch (command.lane) {
      case Lane::copy_in: found->copy_in += command.duration(); break;
      case Lane::compute: found->compute += command.duration(); break;
      case Lane::copy_out: found->copy_out += command.duration(); break;
    }
  }
  const PipelineDeviceReport* slowest = nullptr;
  for (PipelineDeviceReport& device : report.devices) {
    bound(device);
    if (slowest == nullptr || device.ideal > slowest->ideal) slowest = &device;
  }
  if (slowest != nullptr) {
    report.ideal = slowest->ideal;
    report.bound_by = slowest->bound_by + " on " + slowest->label;
  }
  report.efficiency = wall.count() > 0 ? static_cast<double>(report.ideal.count()) / wall.count() : 0.0;
  return report;
}

}  // namespace alloy::detail

namespace alloy {

std::string PipelineReport::to_string() const {
  std::ostringstream out;
  out << "alloy pipeline: " << elements << " elements in " << chunks << " chunks of " << chunk_elements
      << " (chunk size " << chunking << "), depth " << depth << ", on " << devices.size()
      << (devices.size() == 1 ? " device\n" : " devices\n");
  for (const PipelineDeviceReport& device : devices) {
    out << "  " << device.label << ": copy-in " << detail::milliseconds(device.copy_in) << ", compute "
        << detail::milliseconds(device.compute) << ", copy-out " << detail::milliseconds(device.copy_out)
        << "; ideal " << detail::milliseconds(device.ideal) << " (" << device.bound_by << ", "
        << device.copy_engines << (device.copy_engines == 1 ? " copy engine)\n" : " copy engines)\n");
  }
  for (const std::string& array : arrays) out << "  " << array << '\n';
  if (host_copies.count() > 0) {
    out << "  host threads reading, writing or staging: busy " << detail::milliseconds(host_copies) << '\n';
  }
  char efficiency_text[16];
  std::snprintf(efficiency_text, sizeof efficiency_text, "%.3f", efficiency);
  out << "  wall " << detail::milliseconds(wall) << ", ideal " << detail::milliseconds(ideal)
      << ": overlap efficiency " << efficiency_text << ", bound by " << bound_by << '\n';
  return out.str();
}

}  // namespace alloy
