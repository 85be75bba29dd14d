// Device allocations and pinned host allocations.
#pragma once

#include <cstddef>

namespace alloy {

class Device;

/// Memory on one device, freed when destroyed. Must not outlive its Runtime.
class DeviceBuffer {
 public:
  DeviceBuffer(Device& device, std::size_t bytes) : device_(device), bytes_(bytes) {}
  virtual ~DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  Device& device() const { return device_; }
  std::size_t size() const { return bytes_; }

 private:
  Device& device_;
  std::size_t bytes_;
};

/// Page-locked host memory where the backend offers it: transfers from and to
/// it run asynchronously at full bus speed.
class HostBuffer {
 public:
  explicit HostBuffer(std::size_t bytes) : bytes_(bytes) {}
  virtual ~HostBuffer() = default;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  virtual void* data() = 0;
  std::size_t size() const { return bytes_; }

 private:
  std::size_t bytes_;
};

}  // namespace alloy
