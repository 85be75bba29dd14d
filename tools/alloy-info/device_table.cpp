// Formats every backend and device for people (a table) and programs (JSON).
#include "device_table.hpp"

#include <algorithm>
#include <sstream>

namespace alloy::info {
namespace {

std::string memory(std::size_t bytes) {
  std::ostringstream text;
  if (bytes >= (std::size_t{1} << 30)) {
    text.precision(1);
    text << std::fixed << static_cast<double>(bytes) / (1u << 30) << " GiB";
  } else {
    text << (bytes >> 10) << " KiB";
  }
  return text.str();
}

using Row = std::vector<std::string>;

Row device_row(const Device& device) {
  const DeviceInfo& info = device.info();
  return {info.backend,
          std::to_string(device.index()),
          info.name,
          info.architecture,
          std::to_string(info.compute_units),
          std::to_string(info.max_work_group_size),
          memory(info.local_memory_bytes),
          memory(info.global_memory_bytes),
          memory(info.max_allocation_bytes),
          info.sub_group_width ? std::to_string(*info.sub_group_width) : "-",
          info.driver_version};
}

}  // namespace

std::string format_table(const std::vector<BackendStatus>& backends) {
  const Row header{"BACKEND", "#",     "DEVICE",    "ARCHITECTURE", "CUs", "MAX WG",
                   "LOCAL",   "GLOBAL", "MAX ALLOC", "SUB-GROUP",    "DRIVER"};
  std::vector<Row> rows;
  for (const BackendStatus& backend : backends) {
    for (const Device* device : backend.devices) rows.push_back(device_row(*device));
  }
  std::vector<std::size_t> widths(header.size());
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (std::size_t c = 0; c < header.size(); ++c) widths[c] = std::max(widths[c], header[c].size());

  std::ostringstream out;
  auto print_row = [&](const Row& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c] + std::string(widths[c] - row[c].size() + 2, ' ');
    }
    out << line.substr(0, line.find_last_not_of(' ') + 1) << '\n';
  };
  print_row(header);
  for (const BackendStatus& backend : backends) {
    for (const Device* device : backend.devices) {
      print_row(device_row(*device));
      out << "    fingerprint: " << device->info().fingerprint() << '\n';
      if (!device->info().emulation.empty()) {
        out << "    emulated (not hardware): " << device->info().emulation << '\n';
      }
    }
  }
  out << '\n';
  for (const BackendStatus& backend : backends) {
    out << backend.name << ": ";
    if (!backend.devices.empty()) {
      out << backend.devices.size() << (backend.devices.size() == 1 ? " device" : " devices")
          << " (" << backend.library.string() << ")\n";
    } else {
      out << "0 devices: " << backend.reason << '\n';
    }
  }
  return out.str();
}

nlohmann::json to_json(const std::vector<BackendStatus>& backends) {
  nlohmann::json document = nlohmann::json::array();
  for (const BackendStatus& backend : backends) {
    nlohmann::json devices = nlohmann::json::array();
    for (const Device* device : backend.devices) {
      const DeviceInfo& info = device->info();
      devices.push_back({
          {"index", device->index()},
          {"name", info.name},
          {"vendor", info.vendor},
          {"architecture", info.architecture},
          {"driver_version", info.driver_version},
          {"compute_units", info.compute_units},
          {"max_work_group_size", info.max_work_group_size},
          {"max_work_item_sizes", info.max_work_item_sizes},
          {"max_group_counts", info.max_group_counts},
          {"local_memory_bytes", info.local_memory_bytes},
          {"global_memory_bytes", info.global_memory_bytes},
          {"max_allocation_bytes", info.max_allocation_bytes},
          {"sub_group_width", info.sub_group_width ? nlohmann::json(*info.sub_group_width)
                                                   : nlohmann::json(nullptr)},
          {"copy_engines", info.copy_engines},
          {"fp64", info.fp64},
          {"emulated", !info.emulation.empty()},
          {"emulation", info.emulation},
          {"fingerprint", info.fingerprint()},
      });
    }
    document.push_back({{"backend", backend.name},
                        {"library", backend.library.string()},
                        {"available", !backend.devices.empty()},
                        {"reason", backend.reason},
                        {"devices", devices}});
  }
  return document;
}

}  // namespace alloy::info
