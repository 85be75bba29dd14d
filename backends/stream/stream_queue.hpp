// A CUDA/HIP stream as an alloy queue; each command ends with an event, and
// is bracketed by two while the queue's timing is on.
#pragma once

#include "alloy/backend/queue.hpp"
#include "stream_api.hpp"

namespace alloy::stream {

class StreamDevice;

/// Device-side start (while timed; else null) and end of one command. Start times are read as times
/// since the device's epoch event, in the APIs' float milliseconds: their
/// resolution coarsens as the process runs (62 µs after 17 minutes), while
/// durations keep about 0.5 µs.
class StreamEvent final : public Event {
 public:
  /// `stream`: where `end` is recorded, which on_complete adds its callback to.
  StreamEvent(StreamDevice& device, Handle start, Handle end, Handle stream);
  ~StreamEvent() override;

  void wait() override;
  bool is_complete() const override;
  /// The APIs record no queueing time: queued_ns equals started_ns.
  EventTiming timing() override;
  /// A stream callback after the command (add_callback); where the API has
  /// none, false.
  bool on_complete(std::function<void()> callback) override;
  const StreamDevice& device() const { return device_; }
  Handle end() const { return end_; }

 private:
  StreamDevice& device_;
  Handle start_;
  Handle end_;
  Handle stream_;
};

class StreamQueue final : public Queue {
 public:
  /// `priority`: one the device ranks, or normal.
  StreamQueue(StreamDevice& device, QueuePriority priority);
  ~StreamQueue() override;

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

  /// Makes the device current, records a start event, runs `command` (which
  /// returns the vendor status), records an end event.
  template <class Command>
  std::shared_ptr<Event> enqueue(const char* call, Command command);

  StreamDevice& device_;
  const StreamApi& api_;
  Handle stream_ = nullptr;
};

}  // namespace alloy::stream
