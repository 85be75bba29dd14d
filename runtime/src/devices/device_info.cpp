// Device fingerprints and extents as text.
#include "alloy/device_info.hpp"
#include "alloy/launch_range.hpp"

namespace alloy {

std::string DeviceInfo::fingerprint() const {
  // Everything that changes generated code or its speed, and nothing that
  // differs between two identical boards (bus ids) or between runs: memory
  // size is left out because CPU drivers such as PoCL derive it from the free
  // host memory (3.72 and 3.82 GiB seen on one machine), and a GPU's memory
  // size already follows from its name.
  return backend + "|" + vendor + "|" + name + "|" + architecture + "|" + driver_version +
         "|cu" + std::to_string(compute_units);
}

std::string Extent::to_string() const {
  std::string text = std::to_string(size[0]);
  for (unsigned d = 1; d < dimensions; ++d) {
    text += 'x';
    text += std::to_string(size[d]);
  }
  return text;
}

}  // namespace alloy
