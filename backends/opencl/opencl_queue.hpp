// OpenCL in-order command queues with profiling, and their events.
#pragma once

#include "alloy/backend/queue.hpp"
#include "opencl_api.hpp"

namespace alloy::opencl {

class OpenCLDevice;

class OpenCLEvent final : public Event {
 public:
  /// `device_label`: the queue's, shared rather than copied per command.
  OpenCLEvent(cl::Event event, std::shared_ptr<const std::string> device_label, std::string command);

  void wait() override;
  bool is_complete() const override;
  EventTiming timing() override;
  /// clSetEventCallback, after flushing the event's queue.
  bool on_complete(std::function<void()> callback) override;
  const cl::Event& event() const { return event_; }

 private:
  cl::Event event_;
  std::shared_ptr<const std::string> device_label_;
  std::string command_;
};

class OpenCLQueue final : public Queue {
 public:
  explicit OpenCLQueue(OpenCLDevice& device);

 private:
  std::shared_ptr<Event> do_write(DeviceBuffer& dst, std::size_t dst_offset, const void* src,
                                  std::size_t bytes) override;
  std::shared_ptr<Event> do_read(const DeviceBuffer& src, std::size_t src_offset, void* dst,
                                 std::size_t bytes) override;
  std::shared_ptr<Event> do_copy(const DeviceBuffer& src, std::size_t src_offset,
                                 DeviceBuffer& dst, std::size_t dst_offset,
                                 std::size_t bytes) override;
  std::shared_ptr<Event> do_fill(DeviceBuffer& dst, std::size_t offset, const void* pattern,
                                 std::size_t pattern_bytes, std::size_t bytes) override;
  std::shared_ptr<Event> do_launch(const Kernel& kernel, const LaunchRange& range,
                                   std::span<const KernelArg> args) override;
  void do_wait_for(Event& event) override;
  void do_finish() override;

  std::shared_ptr<Event> wrap(cl::Event event, std::string command);

  cl::CommandQueue queue_;
  std::shared_ptr<const std::string> label_;  ///< the device's, for errors
};

}  // namespace alloy::opencl
