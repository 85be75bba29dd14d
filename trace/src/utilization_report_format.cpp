// The utilization report as text for people and JSON for programs.
#include <nlohmann/json.hpp>
#include <sstream>

#include "alloy/utilization_report.hpp"
#include "time_text.hpp"

namespace alloy {
namespace {

using detail::duration_text;
using detail::mebibytes_text;
using detail::percent_text;

constexpr std::size_t kernels_listed = 5;

std::string rate_text(double per_second, const char* unit) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3g %s", per_second * 1e-9, unit);
  return text;
}

std::string idle_text(const DeviceUtilization& device) {
  std::ostringstream out;
  std::uint64_t total = 0;
  for (std::uint64_t ns : device.idle_by_cause) total += ns;
  out << "idle " << duration_text(total);
  const char* separator = ": ";
  for (std::size_t c = 0; c < idle_cause_count; ++c) {
    if (device.idle_by_cause[c] == 0) continue;
    out << separator << to_string(static_cast<IdleCause>(c)) << ' ' << duration_text(device.idle_by_cause[c]);
    separator = ", ";
  }
  return out.str();
}

/// What the executor took of the device's memory against its share, and
/// how often it held work back for other jobs; empty when neither applies.
std::string sharing_text(const DeviceUtilization& device) {
  std::ostringstream out;
  if (device.memory_share != 0) {
    out << "    memory: at most " << mebibytes_text(device.memory_peak) << " of its "
        << mebibytes_text(device.memory_share) << " share ("
        << percent_text(static_cast<double>(device.memory_peak) / static_cast<double>(device.memory_share)) << ")\n";
  }
  if (device.holds > 0) {
    out << "    held work back " << device.holds << (device.holds == 1 ? " time" : " times")
        << " for other jobs' critical work; in flight at most " << duration_text(device.tightest_bound_ns);
    if (device.loosest_bound_ns != device.tightest_bound_ns) out << " to " << duration_text(device.loosest_bound_ns);
    out << " of predicted work\n";
  }
  return out.str();
}

}  // namespace

std::string UtilizationReport::to_text() const {
  std::ostringstream out;
  out << "alloy report: " << duration_text(window_ns) << " traced, " << tasks << " tasks on " << devices.size()
      << (devices.size() == 1 ? " device\n" : " devices\n");
  for (const DeviceUtilization& device : devices) {
    out << "  " << device.label << ": compute busy " << percent_text(device.busy) << "; copies "
        << duration_text(device.copy_ns) << ", " << percent_text(device.overlap) << " overlapped with compute\n";
    out << "    lanes:";
    for (std::size_t l = 0; l < device.lanes.size(); ++l) {
      out << (l == 0 ? " " : ", ") << device.lanes[l].lane << ' ' << percent_text(device.lanes[l].busy);
    }
    out << "\n    " << idle_text(device) << '\n' << sharing_text(device);
  }
  if (communication_ns > 0) {
    out << "  communication: " << duration_text(communication_ns) << " with an async operation in flight, "
        << percent_text(static_cast<double>(communication_overlap_ns) / static_cast<double>(communication_ns))
        << " of it while a device computed\n";
  }
  if (!kernels.empty()) out << "top kernels:\n";
  for (std::size_t k = 0; k < kernels.size() && k < kernels_listed; ++k) {
    const KernelUtilization& kernel = kernels[k];
    out << "  " << kernel.kernel << " on " << devices.at(kernel.device).label << ": " << kernel.launches
        << (kernel.launches == 1 ? " launch, " : " launches, ") << duration_text(kernel.total_ns);
    if (kernel.flops_per_second) out << ", " << rate_text(*kernel.flops_per_second, "GFLOP/s");
    if (kernel.bytes_per_second) out << ", " << rate_text(*kernel.bytes_per_second, "GB/s");
    out << ", profile " << kernel.profile_match;
    if (!kernel.configuration.empty()) out << " (" << kernel.configuration << ")";
    if (kernel.work_groups != 0) out << ", " << kernel.work_groups << " work-groups";
    out << '\n';
  }
  out << "diagnosis:\n";
  for (std::size_t i = 0; i < diagnoses.size(); ++i) {
    const Diagnosis& line = diagnoses[i];
    out << "  " << i + 1 << ". " << line.cause;
    if (line.saving_ns > 0) out << ", up to " << duration_text(line.saving_ns) << " to save";
    out << ": " << line.finding << '\n';
    if (!line.remedy.empty()) out << "     fix: " << line.remedy << '\n';
  }
  return out.str();
}

std::string UtilizationReport::to_json() const {
  using nlohmann::json;
  json root = {{"window_start_ns", window_start_ns}, {"window_ns", window_ns}, {"tasks", tasks}};
  json& devices_json = root["devices"] = json::array();
  for (const DeviceUtilization& device : devices) {
    json lanes_json = json::array();
    for (const LaneUtilization& lane : device.lanes) {
      lanes_json.push_back({{"lane", lane.lane}, {"busy_ns", lane.busy_ns}, {"busy", lane.busy}});
    }
    json idle = json::object();
    for (std::size_t c = 0; c < idle_cause_count; ++c) {
      idle[std::string(to_string(static_cast<IdleCause>(c)))] = device.idle_by_cause[c];
    }
    devices_json.push_back({{"label", device.label}, {"compute_ns", device.compute_ns}, {"busy", device.busy},
                            {"copy_ns", device.copy_ns}, {"overlap_ns", device.overlap_ns},
                            {"overlap", device.overlap}, {"lanes", lanes_json}, {"idle_ns", idle},
                            {"gaps", device.gaps.size()}, {"memory_share", device.memory_share},
                            {"memory_peak", device.memory_peak}, {"holds", device.holds},
                            {"tightest_bound_ns", device.tightest_bound_ns},
                            {"loosest_bound_ns", device.loosest_bound_ns}});
  }
  root["communication_ns"] = communication_ns;
  root["communication_overlap_ns"] = communication_overlap_ns;
  json& kernels_json = root["kernels"] = json::array();
  for (const KernelUtilization& kernel : kernels) {
    json entry = {{"kernel", kernel.kernel},         {"device", kernel.device},
                  {"launches", kernel.launches},     {"total_ns", kernel.total_ns},
                  {"bytes", kernel.bytes},           {"flops", kernel.flops},
                  {"profile_match", kernel.profile_match}, {"configuration", kernel.configuration},
                  {"work_groups", kernel.work_groups}};
    if (kernel.bytes_per_second) entry["bytes_per_second"] = *kernel.bytes_per_second;
    if (kernel.flops_per_second) entry["flops_per_second"] = *kernel.flops_per_second;
    kernels_json.push_back(std::move(entry));
  }
  json& diagnoses_json = root["diagnoses"] = json::array();
  for (const Diagnosis& line : diagnoses) {
    json entry = {{"cause", line.cause}, {"saving_ns", line.saving_ns}, {"finding", line.finding},
                  {"remedy", line.remedy}};
    if (line.device) entry["device"] = *line.device;
    diagnoses_json.push_back(std::move(entry));
  }
  return root.dump(2);
}

}  // namespace alloy
