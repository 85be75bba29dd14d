// Checks every device operation shares, before the backend's own code runs.
#include "alloy/backend/device.hpp"

#include "alloy/dialect.hpp"
#include "alloy/error.hpp"

namespace alloy {
namespace {

std::string mebibytes(std::size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB (" + std::to_string(bytes) + " bytes)";
}

}  // namespace

std::string Device::label() const {
  return info_.backend + ":" + std::to_string(index_) + " " + info_.name;
}

std::unique_ptr<DeviceBuffer> Device::allocate(std::size_t bytes) {
  if (bytes == 0) {
    throw InvalidArgument("allocate on " + label() + ": size is 0; allocate at least one byte");
  }
  if (bytes > info_.max_allocation_bytes) {
    throw InvalidArgument("allocate on " + label() + ": " + mebibytes(bytes) +
                          " exceeds the device's largest single allocation of " +
                          mebibytes(info_.max_allocation_bytes) +
                          "; split the data into several buffers");
  }
  return do_allocate(bytes);
}

std::unique_ptr<HostBuffer> Device::allocate_host(std::size_t bytes) {
  if (bytes == 0) {
    throw InvalidArgument("allocate_host on " + label() + ": size is 0");
  }
  return do_allocate_host(bytes);
}

std::shared_ptr<Program> Device::build_program(const ProgramSource& source) {
  const ComposedSource composed = compose_kernel_source(source);
  return with_slices(do_build_program(source, composed), composed);
}

std::shared_ptr<Program> Device::load_program(const ProgramSource& source,
                                              std::span<const std::byte> binary) {
  const ComposedSource composed = compose_kernel_source(source);
  return with_slices(do_load_program(source, composed, binary), composed);
}

std::shared_ptr<Program> Device::with_slices(std::shared_ptr<Program> program, const ComposedSource& composed) {
  program->sliceable_ = composed.sliceable;
  program->takes_first_group_ = composed.takes_first_group;
  return program;
}

std::vector<Device*> OwningPlatform::devices() {
  std::vector<Device*> devices;
  for (auto& device : devices_) devices.push_back(device.get());
  return devices;
}

std::string OwningPlatform::unavailable_reason() const {
  if (!devices_.empty()) return {};
  return problems_.empty() ? "0 devices" : problems_;
}

void OwningPlatform::add_device(std::unique_ptr<Device> device) {
  device->index_ = devices_.size();
  devices_.push_back(std::move(device));
}

void OwningPlatform::add_problem(const std::string& problem) {
  problems_ += (problems_.empty() ? "" : "; ") + problem;
}

}  // namespace alloy
