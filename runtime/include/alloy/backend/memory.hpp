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

/// The caller's own host memory, page-locked in place by the backend
/// (Device::register_host): transfers from and to it then run as from a
/// HostBuffer. Unregistered when destroyed; must not outlive its Runtime.
class HostRegistration {
 public:
  HostRegistration(void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  virtual ~HostRegistration() = default;
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }
  /// True when the range was page-locked before, in whole or in part (an
  /// earlier registration, memory from allocate_host): the driver refuses a
  /// second registration, so none was made and none is undone.
  bool was_locked_already() const { return locked_already_; }

 protected:
  void set_locked_already() { locked_already_ = true; }

 private:
  void* data_;
  std::size_t bytes_;
  bool locked_already_ = false;
};

}  // namespace alloy
