// Device memory and page-locked host memory of the stream-model backends.
#pragma once

#include "alloy/backend/memory.hpp"
#include "stream_api.hpp"

namespace alloy::stream {

class StreamDevice;

class StreamBuffer final : public DeviceBuffer {
 public:
  StreamBuffer(StreamDevice& device, std::size_t bytes);
  ~StreamBuffer() override;
  DevicePointer address() const { return address_; }

 private:
  StreamDevice& device_;
  DevicePointer address_ = 0;
};

class StreamHostBuffer final : public HostBuffer {
 public:
  StreamHostBuffer(StreamDevice& device, std::size_t bytes);
  ~StreamHostBuffer() override;
  void* data() override { return data_; }

 private:
  StreamDevice& device_;
  void* data_ = nullptr;
};

class StreamHostRegistration final : public HostRegistration {
 public:
  /// Registers the range; Error with the API's code when it refuses.
  StreamHostRegistration(StreamDevice& device, void* data, std::size_t bytes);
  ~StreamHostRegistration() override;

 private:
  StreamDevice& device_;
};

}  // namespace alloy::stream
