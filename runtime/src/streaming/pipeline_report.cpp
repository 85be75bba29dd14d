// What a pipeline run's lanes did, against the best overlap could do.
#include "pipeline_report.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
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

std::chrono::nanoseconds chunk_free_bound(const StreamedChunks& measured, const std::vector<ChunkSpan>& spans,
                                          std::size_t device, unsigned copy_engines, std::size_t fill_elements) {
  constexpr std::size_t lanes = 3;  // copy-in, compute, copy-out
  std::map<std::size_t, std::array<std::uint64_t, lanes>> per_chunk;  // ns per lane, all of a chunk's commands
  for (std::size_t i = 0; i < measured.commands.size() && i < measured.chunk_of_command.size(); ++i) {
    const CommandTime& command = measured.commands[i];
    if (command.device != device) continue;
    const std::size_t lane = command.lane == Lane::copy_in ? 0 : command.lane == Lane::compute ? 1 : 2;
    per_chunk[measured.chunk_of_command[i]][lane] += static_cast<std::uint64_t>(command.duration().count());
  }
  std::array<double, lanes> best{};  // ns per element; 0: the lane did nothing
  std::size_t elements = 0;
  for (const auto& [chunk, times] : per_chunk) {
    const std::size_t length = chunk < spans.size() ? spans[chunk].length : 0;
    if (length == 0) continue;
    elements += length;
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      const double per_element = static_cast<double>(times[lane]) / static_cast<double>(length);
      if (times[lane] > 0 && (best[lane] == 0 || per_element < best[lane])) best[lane] = per_element;
    }
  }
  // Each lane runs all its elements, after the first chunk passed the lanes
  // before it and before the last chunk passes the lanes after it.
  const double all = static_cast<double>(elements);
  const double one = static_cast<double>(std::min(fill_elements, elements));
  const auto [in, compute, out] = best;
  const double computing = in * one + compute * all + out * one;
  const double copying = copy_engines >= 2 ? std::max(in * all + (compute + out) * one, (in + compute) * one + out * all)
                                           : (in + out) * all + compute * one;  // both directions take turns
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::max(computing, copying)));
}

PipelineReport summarize(const StreamedChunks& measured, const std::vector<ChunkSpan>& spans,
                         std::chrono::nanoseconds wall, const std::vector<Device*>& all,
                         const std::vector<std::size_t>& devices, std::size_t fill_elements) {
  const std::vector<CommandTime>& commands = measured.commands;
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
  for (const PipelineDeviceReport& device : report.devices) {
    report.bound = std::max(report.bound,
                            chunk_free_bound(measured, spans, device.device, device.copy_engines, fill_elements));
  }
  report.bound_efficiency = wall.count() > 0 ? static_cast<double>(report.bound.count()) / wall.count() : 0.0;
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
  char bound_text[16];
  std::snprintf(bound_text, sizeof bound_text, "%.3f", bound_efficiency);
  out << "  wall " << detail::milliseconds(wall) << ", ideal " << detail::milliseconds(ideal)
      << ": overlap efficiency " << efficiency_text << ", bound by " << bound_by << '\n';
  out << "  against the bound no chunk size or route beats (" << detail::milliseconds(bound)
      << ", each lane at its best rate in this run): " << bound_text << '\n';
  return out.str();
}

}  // namespace alloy
