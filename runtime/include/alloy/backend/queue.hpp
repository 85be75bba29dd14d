// An in-order command queue on one device: transfers, fills and launches.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>

#include "alloy/backend/event.hpp"
#include "alloy/backend/memory.hpp"
#include "alloy/backend/program.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/launch_range.hpp"

namespace alloy {

class Queue;

/// How a queue's kernels rank against other queues' on its device where the
/// backend ranks queues (Device::ranks_queues): CUDA and HIP stream
/// priorities, OpenCL's cl_khr_priority_hints, the emulated device's compute
/// engine. A rank orders kernels waiting to start; a running kernel is not
/// preempted, and transfers are not ranked.
enum class QueuePriority { high, normal, low };

const char* to_string(QueuePriority priority);

/// A command a queue has just handed its backend, as its observer sees it.
struct SubmittedCommand {
  enum class Type { write, read, copy, fill, launch };
  Type type;
  std::size_t bytes = 0;                ///< of a transfer or fill
  const Kernel* kernel = nullptr;       ///< of a launch
  const LaunchRange* range = nullptr;   ///< of a launch
  std::chrono::steady_clock::time_point enqueued;  ///< just before the backend was called
  const std::shared_ptr<Event>& event;
};

/// Told of every command a queue submits, on the submitting thread: how the
/// executor traces (docs/tracing.md).
class QueueObserver {
 public:
  virtual ~QueueObserver() = default;
  virtual void submitted(const Queue& queue, const SubmittedCommand& command) = 0;
};

/// Commands run in submission order; each returns an Event. Host memory passed
/// to write/read must stay valid until that command's event completes. A Queue
/// is used by one thread at a time; create one queue per thread or lane.
/// Must not outlive its Runtime.
class Queue {
 public:
  /// `priority`: what the backend applied, normal where it ranks no queues.
  explicit Queue(Device& device, QueuePriority priority = QueuePriority::normal)
      : device_(device), priority_(priority) {}
  virtual ~Queue() = default;
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  Device& device() const { return device_; }
  QueuePriority priority() const { return priority_; }

  std::shared_ptr<Event> write(DeviceBuffer& dst, std::size_t dst_offset, const void* src,
                               std::size_t bytes);
  std::shared_ptr<Event> read(const DeviceBuffer& src, std::size_t src_offset, void* dst,
                              std::size_t bytes);
  /// Device to device, on one device or between two devices of one platform.
  std::shared_ptr<Event> copy(const DeviceBuffer& src, std::size_t src_offset,
                              DeviceBuffer& dst, std::size_t dst_offset, std::size_t bytes);
  /// Repeats a 1-, 2- or 4-byte pattern over `bytes` bytes (a multiple of it).
  std::shared_ptr<Event> fill(DeviceBuffer& dst, std::size_t offset, const void* pattern,
                              std::size_t pattern_bytes, std::size_t bytes);

  /// Checks arguments against the kernel's declared parameters and the range
  /// against the device's and kernel's limits (InvalidArgument) first.
  std::shared_ptr<Event> launch(const Kernel& kernel, const LaunchRange& range,
                                std::span<const KernelArg> args);

  template <class... Args>
  std::shared_ptr<Event> launch(const Kernel& kernel, const LaunchRange& range,
                                const Args&... args) {
    const std::array<KernelArg, sizeof...(Args)> packed{KernelArg::from(args)...};
    return launch(kernel, range, std::span<const KernelArg>(packed));
  }

  /// Commands submitted after this wait for `event`, possibly from another
  /// queue of the same platform, without blocking the host.
  void wait_for(Event& event);
  /// Blocks until every command submitted so far has completed.
  void finish();

  /// Whether commands submitted from now on record device timestamps for
  /// Event::timing(): on by default. Off, a backend may skip what timing
  /// costs per command (CUDA and HIP: a second event and its timestamp;
  /// OpenCL: after a run of untimed commands, a second queue without
  /// profiling); timing() of such a command throws Error.
  void set_timing(bool on) { timing_ = on; }
  /// An observed queue times every command.
  bool timing() const { return timing_ || observer_ != nullptr; }

  /// Tells `observer` of every command submitted from now on; nullptr stops.
  /// Not owned: it must outlive its use here.
  void observe(QueueObserver* observer) { observer_ = observer; }

 private:
  virtual std::shared_ptr<Event> do_write(DeviceBuffer& dst, std::size_t dst_offset,
                                          const void* src, std::size_t bytes) = 0;
  virtual std::shared_ptr<Event> do_read(const DeviceBuffer& src, std::size_t src_offset,
                                         void* dst, std::size_t bytes) = 0;
  virtual std::shared_ptr<Event> do_copy(const DeviceBuffer& src, std::size_t src_offset,
                                         DeviceBuffer& dst, std::size_t dst_offset,
                                         std::size_t bytes) = 0;
  virtual std::shared_ptr<Event> do_fill(DeviceBuffer& dst, std::size_t offset,
                                         const void* pattern, std::size_t pattern_bytes,
                                         std::size_t bytes) = 0;
  virtual std::shared_ptr<Event> do_launch(const Kernel& kernel, const LaunchRange& range,
                                           std::span<const KernelArg> args) = 0;
  virtual void do_wait_for(Event& event) = 0;
  virtual void do_finish() = 0;

  /// Submits through `submit` and tells the observer, if any.
  template <class Submit>
  std::shared_ptr<Event> observed(SubmittedCommand::Type type, std::size_t bytes, const Kernel* kernel,
                                  const LaunchRange* range, Submit&& submit);

  Device& device_;
  const QueuePriority priority_;
  bool timing_ = true;
  QueueObserver* observer_ = nullptr;
};

}  // namespace alloy
