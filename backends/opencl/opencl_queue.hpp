// OpenCL in-order command queues, and their events.
#pragma once

#include "alloy/backend/queue.hpp"
#include "opencl_api.hpp"

namespace alloy::opencl {

class OpenCLDevice;

class OpenCLEvent final : public Event {
 public:
  /// `device_label`: the queue's, shared rather than copied per command;
  /// `timed`: submitted to a queue that profiles its commands.
  OpenCLEvent(cl::Event event, std::shared_ptr<const std::string> device_label, std::string command, bool timed);

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
  bool timed_;
};

/// One in-order queue made of two OpenCL queues: one that profiles its
/// commands, for those timed (Queue::timing()), and one that does not, for
/// long runs of untimed ones; profiling costs PoCL 5-13% of an empty launch
/// (bench_graph's raw_untimed against raw_enqueue). Moving from one to the other orders the next after the last
/// command of the first, so commands run in submission order either way.
class OpenCLQueue final : public Queue {
 public:
  /// `priority`: given to the driver as cl_khr_priority_hints' hint unless
  /// normal (the device must offer the extension then).
  OpenCLQueue(OpenCLDevice& device, QueuePriority priority);

  /// Untimed commands in a row before they go to the queue that does not
  /// profile: an executor sampling a kernel's times now and then stays on
  /// one queue rather than paying a switch per sample.
  static constexpr std::size_t untimed_before_switching = 32;

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

  /// The queue the next command goes to, ordered after every command
  /// submitted before it.
  cl::CommandQueue& next_queue();
  /// One of the two OpenCL queues, with this queue's priority hint.
  cl::CommandQueue make_queue(cl_command_queue_properties properties) const;
  /// The event of a command just submitted to the current queue.
  std::shared_ptr<Event> submitted(cl::Event event, std::string command);

  OpenCLDevice& device_;
  std::shared_ptr<const std::string> label_;  ///< the device's, for errors
  cl::CommandQueue profiling_;
  cl::CommandQueue plain_;  ///< made at the first long run of untimed commands
  cl::CommandQueue* current_ = &profiling_;
  std::size_t untimed_in_a_row_ = 0;
};

}  // namespace alloy::opencl
