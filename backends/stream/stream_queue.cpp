// Transfers, fills and launches on a CUDA/HIP stream, with timing events when asked for.
#include "stream_queue.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <set>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "launch_geometry.hpp"
#include "stream_check.hpp"
#include "stream_device.hpp"
#include "stream_memory.hpp"
#include "stream_program.hpp"

namespace alloy::stream {
namespace {

DevicePointer address_of(const DeviceBuffer& buffer, std::size_t offset) {
  return static_cast<const StreamBuffer&>(buffer).address() + offset;
}

const DeviceRef& ref_of(const DeviceBuffer& buffer) {
  return static_cast<const StreamDevice&>(buffer.device()).ref();
}

/// Says `advice` once per kernel name and process: a launch shape repeats.
void advise_once(const std::string& kernel, const std::string& advice) {
  static std::mutex mutex;
  static std::set<std::string> advised;
  {
    std::lock_guard lock(mutex);
    if (!advised.insert(kernel).second) return;
  }
  log_warning(advice);
}

}  // namespace

StreamEvent::StreamEvent(StreamDevice& device, Handle start, Handle end, Handle stream)
    : device_(device), start_(start), end_(end), stream_(stream) {}

StreamEvent::~StreamEvent() {
  const StreamApi& api = device_.api();
  // Events belong to a context: the thread dropping the last reference may
  // have another one (or none) current.
  check_in_destructor(api, api.make_current(device_.ref()), api.make_current.name, device_.label());
  if (start_) {
    check_in_destructor(api, api.destroy_event(start_), api.destroy_event.name, device_.label());
  }
  check_in_destructor(api, api.destroy_event(end_), api.destroy_event.name, device_.label());
}

void StreamEvent::wait() {
  device_.make_current();
  const StreamApi& api = device_.api();
  check(api, api.synchronize_event(end_), api.synchronize_event.name, device_.label());
}

bool StreamEvent::is_complete() const {
  device_.make_current();
  const StreamApi& api = device_.api();
  const Status status = api.query_event(end_);
  if (status == api.not_ready) return false;
  check(api, status, api.query_event.name, device_.label());
  return true;
}

bool StreamEvent::on_complete(std::function<void()> callback) {
  const StreamApi& api = device_.api();
  if (api.add_callback.function == nullptr) return false;
  // Done already (its queue, which synchronises its stream when it goes,
  // may be gone too): no callback to wait for.
  if (is_complete()) {
    callback();
    return true;
  }
  // On the stream the command ran on, the callback comes right after it:
  // the executor asks just after enqueueing, before the next command there.
  auto held = std::make_unique<StreamCallback>(std::move(callback));
  check(api, api.add_callback(stream_, held.get()), api.add_callback.name, device_.label());
  held.release();  // run_stream_callback frees it
  return true;
}

EventTiming StreamEvent::timing() {
  if (!start_) {
    throw Error("timing of a command on " + device_.label() +
                ": it was submitted while its queue's timing was off (Queue::set_timing); "
                "turn timing on before submitting the commands to be timed");
  }
  wait();
  const StreamApi& api = device_.api();
  device_.make_current();
  // The APIs give float milliseconds between two events: the duration is
  // read directly, keeping ~0.5 µs resolution however long the process has
  // run; only the start's position on the device clock coarsens with time.
  float since_epoch_ms = 0.0f;
  float end_since_epoch_ms = 0.0f;
  float duration_ms = 0.0f;
  check(api, api.elapsed_time(&since_epoch_ms, device_.epoch(), start_), api.elapsed_time.name,
        device_.label());
  check(api, api.elapsed_time(&end_since_epoch_ms, device_.epoch(), end_), api.elapsed_time.name,
        device_.label());
  check(api, api.elapsed_time(&duration_ms, start_, end_), api.elapsed_time.name, device_.label());
  const auto nanoseconds = [](float milliseconds) {
    return static_cast<std::uint64_t>(std::max(0.0, static_cast<double>(milliseconds) * 1e6));
  };
  EventTiming timing;
  timing.started_ns = nanoseconds(since_epoch_ms);
  // No later than the end's own coarse position, which rounds as the next
  // command's start does: back-to-back commands keep their order.
  timing.ended_ns = std::max(timing.started_ns, std::min(timing.started_ns + nanoseconds(duration_ms),
                                                         nanoseconds(end_since_epoch_ms)));
  timing.queued_ns = timing.started_ns;
  return timing;
}

StreamQueue::StreamQueue(StreamDevice& device, QueuePriority priority)
    : Queue(device, priority), device_(device), api_(device.api()) {
  device_.make_current();
  check(api_, api_.create_stream(&stream_, device_.stream_priority(priority)), api_.create_stream.name,
        device_.label());
}

StreamQueue::~StreamQueue() {
  check_in_destructor(api_, api_.make_current(device_.ref()), api_.make_current.name,
                      device_.label());
  check_in_destructor(api_, api_.synchronize_stream(stream_), api_.synchronize_stream.name,
                      device_.label());
  check_in_destructor(api_, api_.destroy_stream(stream_), api_.destroy_stream.name,
                      device_.label());
}

template <class Command>
std::shared_ptr<Event> StreamQueue::enqueue(const char* call, Command command) {
  device_.make_current();
  // Untimed, a command needs only the event that marks its end.
  const bool timed = timing();
  Handle start = nullptr;
  Handle end = nullptr;
  if (timed) check(api_, api_.create_event(&start, true), api_.create_event.name, device_.label());
  if (const Status status = api_.create_event(&end, timed); status != api_.success) {
    if (start) {
      check_in_destructor(api_, api_.destroy_event(start), api_.destroy_event.name, device_.label());
    }
    check(api_, status, api_.create_event.name, device_.label());
  }
  // Owns its events from here on, also when a call below fails.
  auto event = std::make_shared<StreamEvent>(device_, start, end, stream_);
  if (timed) check(api_, api_.record_event(start, stream_), api_.record_event.name, device_.label());
  check(api_, command(), call, device_.label());
  check(api_, api_.record_event(end, stream_), api_.record_event.name, device_.label());
  return event;
}

std::shared_ptr<Event> StreamQueue::do_write(DeviceBuffer& dst, std::size_t dst_offset,
                                             const void* src, std::size_t bytes) {
  return enqueue(api_.copy_to_device.name, [&] {
    return api_.copy_to_device(address_of(dst, dst_offset), src, bytes, stream_);
  });
}

std::shared_ptr<Event> StreamQueue::do_read(const DeviceBuffer& src, std::size_t src_offset,
                                            void* dst, std::size_t bytes) {
  return enqueue(api_.copy_to_host.name, [&] {
    return api_.copy_to_host(dst, address_of(src, src_offset), bytes, stream_);
  });
}

std::shared_ptr<Event> StreamQueue::do_copy(const DeviceBuffer& src, std::size_t src_offset,
                                            DeviceBuffer& dst, std::size_t dst_offset,
                                            std::size_t bytes) {
  const DevicePointer from = address_of(src, src_offset);
  const DevicePointer to = address_of(dst, dst_offset);
  if (&src.device() == &device_ && &dst.device() == &device_) {
    return enqueue(api_.copy_on_device.name,
                   [&] { return api_.copy_on_device(to, from, bytes, stream_); });
  }
  return enqueue(api_.copy_peer.name, [&] {
    return api_.copy_peer(to, ref_of(dst), from, ref_of(src), bytes, stream_);
  });
}

std::shared_ptr<Event> StreamQueue::do_fill(DeviceBuffer& dst, std::size_t offset,
                                            const void* pattern, std::size_t pattern_bytes,
                                            std::size_t bytes) {
  const DevicePointer to = address_of(dst, offset);
  const std::size_t count = bytes / pattern_bytes;
  switch (pattern_bytes) {
    case 1: {
      unsigned char value;
      std::memcpy(&value, pattern, 1);
      return enqueue(api_.fill8.name, [&] { return api_.fill8(to, value, count, stream_); });
    }
    case 2: {
      unsigned short value;
      std::memcpy(&value, pattern, 2);
      return enqueue(api_.fill16.name, [&] { return api_.fill16(to, value, count, stream_); });
    }
    default: {
      unsigned int value;
      std::memcpy(&value, pattern, 4);
      return enqueue(api_.fill32.name, [&] { return api_.fill32(to, value, count, stream_); });
    }
  }
}

std::shared_ptr<Event> StreamQueue::do_launch(const Kernel& kernel, const LaunchRange& range,
                                              std::span<const KernelArg> args) {
  const auto& stream_kernel = static_cast<const StreamKernel&>(kernel);
  if (!kernel.signature() && !kernel.attributes().argument_count) {
    // The launch call reads as many parameters as the kernel has: unchecked,
    // too few arguments would make the driver read past them.
    throw InvalidArgument("launch of '" + kernel.name() + "' on " + device_.label() + ": " +
                          api_.api + " cannot tell this kernel's parameter count and its "
                          "declaration was not found in the source; declare it as KERNEL void " +
                          kernel.name() + "(...)");
  }
  const auto what = [&] { return "launch of '" + kernel.name() + "' on " + device_.label(); };
  const LaunchLimits limits =
      LaunchLimits::of(device_.info(), kernel.attributes().max_work_group_size);
  const LaunchGeometry geometry = choose_geometry(range, limits, what);
  if (const std::string advice = tiny_block_advice(range, geometry, limits.warp); !advice.empty()) {
    advise_once(kernel.name(), what() + ": " + advice);
  }
  // The launch reads each parameter through a pointer to its value.
  std::vector<DevicePointer> addresses(args.size());
  std::vector<void*> params(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind == KernelArg::Kind::buffer) {
      addresses[i] = address_of(*args[i].buffer, 0);
      params[i] = &addresses[i];
    } else {
      params[i] = const_cast<std::byte*>(args[i].value.data());
    }
  }
  // Then the slice's first group, which the prelude declares after the
  // declared parameters (Queue::launch checked that it fits).
  std::array<unsigned int, 3> first_group{};
  if (kernel.program().takes_first_group()) {
    for (std::size_t d = 0; d < 3; ++d) {
      first_group[d] = static_cast<unsigned int>(range.first_group[d]);
      params.push_back(&first_group[d]);
    }
  }
  return enqueue(api_.launch.name, [&] {
    return api_.launch(stream_kernel.function(), geometry.grid.data(), geometry.block.data(), stream_,
                       params.data());
  });
}

void StreamQueue::do_wait_for(Event& event) {
  auto* stream_event = dynamic_cast<StreamEvent*>(&event);
  if (stream_event == nullptr || &stream_event->device().api() != &api_) {
    // Another API's event cannot enter this stream: the host waits instead.
    event.wait();
    return;
  }
  device_.make_current();
  check(api_, api_.stream_wait_event(stream_, stream_event->end()), api_.stream_wait_event.name,
        device_.label());
}

void StreamQueue::do_finish() {
  device_.make_current();
  check(api_, api_.synchronize_stream(stream_), api_.synchronize_stream.name, device_.label());
}

}  // namespace alloy::stream
