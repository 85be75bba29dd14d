// A device and the platform (one loaded backend) that enumerates it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alloy/backend/direct_file.hpp"
#include "alloy/backend/memory.hpp"
#include "alloy/backend/program.hpp"
#include "alloy/backend/queue.hpp"
#include "alloy/device_info.hpp"
#include "alloy/dialect.hpp"

namespace alloy {

/// One compute device. Owned by its Platform; valid as long as the Runtime.
/// Thread-safe.
class Device {
 public:
  explicit Device(DeviceInfo info) : info_(std::move(info)) {}
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  /// "opencl:1 pthread-skylake-avx512" - for messages.
  std::string label() const;

  /// A queue whose kernels rank by `priority` against other queues' where
  /// the device ranks queues; elsewhere the priority is ignored (the queue's
  /// priority() says normal).
  std::unique_ptr<Queue> create_queue(QueuePriority priority = QueuePriority::normal) {
    return do_create_queue(priority);
  }
  /// Whether queue priorities order this device's kernels (CUDA and HIP
  /// stream priorities, OpenCL devices with cl_khr_priority_hints, emulated
  /// devices).
  virtual bool ranks_queues() const { return false; }
  /// Throws InvalidArgument above the device's largest allocation and
  /// OutOfDeviceMemory when the device has no room left.
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes);
  std::unique_ptr<HostBuffer> allocate_host(std::size_t bytes);
  /// Page-locks the caller's [data, data + bytes) in place where the backend
  /// can (CUDA's cuMemHostRegister, HIP's hipHostRegister); nullptr where it
  /// cannot (OpenCL has no such call). Error naming the backend's code when
  /// it refuses the range.
  std::unique_ptr<HostRegistration> register_host(void* data, std::size_t bytes) {
    return do_register_host(data, bytes);
  }

  /// Compiles the prelude plus `source` for this device; CompileError with the
  /// compiler's log on failure. Runtime::program() adds caching on top.
  std::shared_ptr<Program> build_program(const ProgramSource& source);
  /// Recreates a program from Program::binary(); throws on a binary the
  /// driver rejects.
  std::shared_ptr<Program> load_program(const ProgramSource& source,
                                        std::span<const std::byte> binary);

  /// Opens `path` for reads straight into this device's memory
  /// (DirectFile), or says why it cannot: a backend without such reads
  /// (OpenCL, HIP), a library, driver or file system that refuses. Never
  /// throws for those; the reason names the call, the vendor's code and what
  /// to do. Each call opens the file anew: keep the DirectFile.
  DirectFileOpening open_direct_file(const std::filesystem::path& path) { return do_open_direct_file(path); }

  /// True when buffers of `other` can be copied to and from on this device's
  /// queues directly (same OpenCL context, same CUDA/HIP process space).
  virtual bool shares_memory_with(const Device& other) const { return &other == this; }

  /// Index among its platform's devices.
  std::size_t index() const { return index_; }

 private:
  friend class OwningPlatform;  // assigns the index
  /// Applies `priority` only where ranks_queues().
  virtual std::unique_ptr<Queue> do_create_queue(QueuePriority priority) = 0;
  virtual std::unique_ptr<DeviceBuffer> do_allocate(std::size_t bytes) = 0;
  virtual std::unique_ptr<HostBuffer> do_allocate_host(std::size_t bytes) = 0;
  virtual std::unique_ptr<HostRegistration> do_register_host(void*, std::size_t) { return nullptr; }
  /// By default: no direct reads, saying so (direct_file.cpp).
  virtual DirectFileOpening do_open_direct_file(const std::filesystem::path& path);
  /// `composed` is what to give the compiler: prelude, defines and source.
  virtual std::shared_ptr<Program> do_build_program(const ProgramSource& source,
                                                    const ComposedSource& composed) = 0;
  virtual std::shared_ptr<Program> do_load_program(const ProgramSource& source,
                                                   const ComposedSource& composed,
                                                   std::span<const std::byte> binary) = 0;
  /// `program`, told whether its kernels may run in slices.
  static std::shared_ptr<Program> with_slices(std::shared_ptr<Program> program, const ComposedSource& composed);

  DeviceInfo info_;
  std::size_t index_ = 0;
};

/// What one backend plugin found: its devices, or why it has none.
class Platform {
 public:
  virtual ~Platform() = default;

  virtual std::string_view name() const = 0;  ///< "opencl", "cuda", "hip"
  virtual std::vector<Device*> devices() = 0;
  /// Empty when devices were enumerated; else why there are none (no
  /// driver, no platform, 0 devices), for alloy-info.
  virtual std::string unavailable_reason() const = 0;
};

/// The usual shape of a Platform: it owns its devices and collects why
/// devices or drivers could not be used. Backends derive from it.
class OwningPlatform : public Platform {
 public:
  std::vector<Device*> devices() override;
  /// The problems met, or "0 devices" when there were none; empty as soon as
  /// one device works (problems with others are then for the log).
  std::string unavailable_reason() const override;

 protected:
  void add_device(std::unique_ptr<Device> device);
  void add_problem(const std::string& problem);
  bool has_devices() const { return !devices_.empty(); }
  const std::string& problems() const { return problems_; }

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  std::string problems_;
};

}  // namespace alloy
