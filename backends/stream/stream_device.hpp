// A CUDA or HIP device: its context, a timing epoch, and what it creates.
#pragma once

#include "alloy/backend/device.hpp"
#include "stream_api.hpp"
#include "stream_direct_file.hpp"

namespace alloy::stream {

class StreamDevice final : public Device {
 public:
  /// Retains the device's context; throws BackendError when that fails.
  StreamDevice(const StreamApi& api, int ordinal, DeviceInfo info);
  ~StreamDevice() override;

  const StreamApi& api() const { return api_; }
  const DeviceRef& ref() const { return ref_; }
  /// Binds this device to the calling thread; every operation starts with it.
  void make_current() const;
  /// An event recorded once at start-up: event timestamps are times since it.
  Handle epoch() const { return epoch_; }

  bool shares_memory_with(const Device& other) const override;
  bool ranks_queues() const override { return least_priority_ != greatest_priority_; }
  /// The API's stream priority for `priority`: its greatest for high, its
  /// least for low, and between them for normal, so that an executor of
  /// each class ranks apart from the other two.
  int stream_priority(QueuePriority priority) const;

 private:
  std::unique_ptr<Queue> do_create_queue(QueuePriority priority) override;
  std::unique_ptr<DeviceBuffer> do_allocate(std::size_t bytes) override;
  std::unique_ptr<HostBuffer> do_allocate_host(std::size_t bytes) override;
  std::unique_ptr<HostRegistration> do_register_host(void* data, std::size_t bytes) override;
  DirectFileOpening do_open_direct_file(const std::filesystem::path& path) override;
  std::shared_ptr<Program> do_build_program(const ProgramSource& source,
                                            const ComposedSource& composed) override;
  std::shared_ptr<Program> do_load_program(const ProgramSource& source,
                                           const ComposedSource& composed,
                                           std::span<const std::byte> binary) override;

  const StreamApi& api_;
  DeviceRef ref_;
  Handle epoch_ = nullptr;
  int least_priority_ = 0;
  int greatest_priority_ = 0;
  DirectStorageState direct_storage_;
};

}  // namespace alloy::stream
