// Enqueueing transfers, fills and kernel launches on an OpenCL queue.
#include "opencl_queue.hpp"

#include <memory>

#include "alloy/error.hpp"
#include "opencl_check.hpp"
#include "opencl_device.hpp"
#include "opencl_memory.hpp"
#include "opencl_program.hpp"

// OpenCL 2.0's queue call, which the 1.2 headers this backend compiles
// against leave out; the ICD loader exports it. Called only for devices that
// offer cl_khr_priority_hints, which needs OpenCL 2.0.
extern "C" CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(cl_context, cl_device_id,
                                                                                         const cl_properties*,
                                                                                         cl_int*);

namespace alloy::opencl {
namespace {

const cl::Buffer& cl_buffer(const DeviceBuffer& buffer) {
  return static_cast<const OpenCLBuffer&>(buffer).buffer();
}

/// A slice's first work-item, as an extent of the range's dimensions.
Extent first_item(const LaunchRange& range) {
  Extent first = range.global;
  for (unsigned d = 0; d < 3; ++d) first.size[d] = range.first_group[d] * (*range.local)[d];
  return first;
}

cl::NDRange to_ndrange(const Extent& extent) {
  switch (extent.dimensions) {
    case 1: return cl::NDRange(extent[0]);
    case 2: return cl::NDRange(extent[0], extent[1]);
    default: return cl::NDRange(extent[0], extent[1], extent[2]);
  }
}

}  // namespace

OpenCLEvent::OpenCLEvent(cl::Event event, std::shared_ptr<const std::string> device_label, std::string command,
                         bool timed)
    : event_(std::move(event)), device_label_(std::move(device_label)), command_(std::move(command)), timed_(timed) {}

void OpenCLEvent::wait() {
  // A command seen complete needs no clWaitForEvents, which flushes the
  // queue and takes the driver's locks (PoCL) while another thread enqueues.
  cl_int execution_status = CL_QUEUED;
  if (event_.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &execution_status) == CL_SUCCESS &&
      execution_status == CL_COMPLETE) {
    return;
  }
  const cl_int status = event_.wait();
  if (status == CL_SUCCESS) return;
  // A failed command reports its own error code as a negative execution status.
  event_.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &execution_status);
  check(execution_status < 0 ? execution_status : status, "clWaitForEvents(" + command_ + ")",
        *device_label_);
}

bool OpenCLEvent::is_complete() const {
  cl_int execution_status = CL_QUEUED;
  check(event_.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &execution_status),
        "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)", *device_label_);
  return execution_status == CL_COMPLETE || execution_status < 0;
}

namespace {

void CL_CALLBACK run_completion_callback(cl_event, cl_int, void* callback) {
  const std::unique_ptr<std::function<void()>> held(static_cast<std::function<void()>*>(callback));
  (*held)();
}

}  // namespace

bool OpenCLEvent::on_complete(std::function<void()> callback) {
  // A command still in its queue is never handed to the device without a
  // flush (clWaitForEvents flushes; a callback does not), so its callback
  // would never come.
  cl::CommandQueue queue;
  if (event_.getInfo(CL_EVENT_COMMAND_QUEUE, &queue) == CL_SUCCESS && queue() != nullptr) {
    check(queue.flush(), "clFlush", *device_label_);
  }
  auto held = std::make_unique<std::function<void()>>(std::move(callback));
  const cl_int status = event_.setCallback(CL_COMPLETE, &run_completion_callback, held.get());
  if (status != CL_SUCCESS) check(status, "clSetEventCallback(" + command_ + ")", *device_label_);
  held.release();  // run_completion_callback frees it
  return true;
}

EventTiming OpenCLEvent::timing() {
  if (!timed_) {
    throw Error("timing of " + command_ + " on " + *device_label_ +
                ": it was submitted while its queue's timing was off (Queue::set_timing); "
                "turn timing on before submitting the commands to be timed");
  }
  wait();
  EventTiming timing;
  const auto read = [&](cl_profiling_info what, const char* name, std::uint64_t& into) {
    cl_ulong value = 0;
    const cl_int status = event_.getProfilingInfo(what, &value);
    if (status != CL_SUCCESS) check(status, std::string("clGetEventProfilingInfo(") + name + ")", *device_label_);
    into = value;
  };
  read(CL_PROFILING_COMMAND_QUEUED, "CL_PROFILING_COMMAND_QUEUED", timing.queued_ns);
  read(CL_PROFILING_COMMAND_START, "CL_PROFILING_COMMAND_START", timing.started_ns);
  read(CL_PROFILING_COMMAND_END, "CL_PROFILING_COMMAND_END", timing.ended_ns);
  return timing;
}

OpenCLQueue::OpenCLQueue(OpenCLDevice& device, QueuePriority priority)
    : Queue(device, priority), device_(device), label_(std::make_shared<const std::string>(device.label())) {
  profiling_ = make_queue(CL_QUEUE_PROFILING_ENABLE);
}

cl::CommandQueue OpenCLQueue::make_queue(cl_command_queue_properties properties) const {
  cl_int status = CL_SUCCESS;
  if (priority() == QueuePriority::normal) {
    cl::CommandQueue queue(device_.context(), device_.cl_device(), properties, &status);
    check(status, properties != 0 ? "clCreateCommandQueue(CL_QUEUE_PROFILING_ENABLE)" : "clCreateCommandQueue",
          *label_);
    return queue;
  }
  // cl_khr_priority_hints takes its hint only through the OpenCL 2.0 call.
  const cl_properties hint = priority() == QueuePriority::high ? CL_QUEUE_PRIORITY_HIGH_KHR : CL_QUEUE_PRIORITY_LOW_KHR;
  const cl_properties hinted[] = {CL_QUEUE_PROPERTIES, properties, CL_QUEUE_PRIORITY_KHR, hint, 0};
  cl_command_queue queue =
      clCreateCommandQueueWithProperties(device_.context()(), device_.cl_device()(), hinted, &status);
  check(status, std::string("clCreateCommandQueueWithProperties(CL_QUEUE_PRIORITY_KHR=") + to_string(priority()) + ")",
        *label_);
  return cl::CommandQueue(queue);  // takes ownership
}

cl::CommandQueue& OpenCLQueue::next_queue() {
  untimed_in_a_row_ = timing() ? 0 : untimed_in_a_row_ + 1;
  cl::CommandQueue* wanted = &profiling_;
  if (untimed_in_a_row_ > 0 && (current_ == &plain_ || untimed_in_a_row_ >= untimed_before_switching)) {
    wanted = &plain_;
  }
  if (wanted == current_) return *current_;
  if (plain_() == nullptr) plain_ = make_queue(0);
  // A marker completes once every command before it on its queue has; a
  // queue may wait only for commands flushed to their device.
  std::vector<cl::Event> before(1);
  check(current_->enqueueMarkerWithWaitList(nullptr, &before[0]), "clEnqueueMarkerWithWaitList", *label_);
  check(current_->flush(), "clFlush", *label_);
  check(wanted->enqueueBarrierWithWaitList(&before), "clEnqueueBarrierWithWaitList", *label_);
  current_ = wanted;
  return *current_;
}

std::shared_ptr<Event> OpenCLQueue::submitted(cl::Event event, std::string command) {
  return std::make_shared<OpenCLEvent>(std::move(event), label_, std::move(command), current_ == &profiling_);
}

std::shared_ptr<Event> OpenCLQueue::do_write(DeviceBuffer& dst, std::size_t dst_offset,
                                             const void* src, std::size_t bytes) {
  cl::Event event;
  check(next_queue().enqueueWriteBuffer(cl_buffer(dst), CL_FALSE, dst_offset, bytes, src, nullptr, &event),
        "clEnqueueWriteBuffer", *label_);
  return submitted(std::move(event), "write");
}

std::shared_ptr<Event> OpenCLQueue::do_read(const DeviceBuffer& src, std::size_t src_offset,
                                            void* dst, std::size_t bytes) {
  cl::Event event;
  check(next_queue().enqueueReadBuffer(cl_buffer(src), CL_FALSE, src_offset, bytes, dst, nullptr, &event),
        "clEnqueueReadBuffer", *label_);
  return submitted(std::move(event), "read");
}

std::shared_ptr<Event> OpenCLQueue::do_copy(const DeviceBuffer& src, std::size_t src_offset,
                                            DeviceBuffer& dst, std::size_t dst_offset,
                                            std::size_t bytes) {
  cl::Event event;
  check(next_queue().enqueueCopyBuffer(cl_buffer(src), cl_buffer(dst), src_offset, dst_offset, bytes, nullptr,
                                       &event),
        "clEnqueueCopyBuffer", *label_);
  return submitted(std::move(event), "copy");
}

std::shared_ptr<Event> OpenCLQueue::do_fill(DeviceBuffer& dst, std::size_t offset,
                                            const void* pattern, std::size_t pattern_bytes,
                                            std::size_t bytes) {
  cl_event event = nullptr;
  check(clEnqueueFillBuffer(next_queue()(), cl_buffer(dst)(), pattern, pattern_bytes, offset, bytes, 0, nullptr,
                            &event),
        "clEnqueueFillBuffer", *label_);
  return submitted(cl::Event(event), "fill");
}

std::shared_ptr<Event> OpenCLQueue::do_launch(const Kernel& kernel, const LaunchRange& range,
                                              std::span<const KernelArg> args) {
  const auto& cl_kernel = static_cast<const OpenCLKernel&>(kernel);
  std::lock_guard lock(cl_kernel.launch_mutex());
  for (cl_uint i = 0; i < args.size(); ++i) {
    const KernelArg& arg = args[i];
    const cl_int status =
        arg.kind == KernelArg::Kind::buffer
            ? clSetKernelArg(cl_kernel.kernel()(), i, sizeof(cl_mem), &cl_buffer(*arg.buffer)())
            : clSetKernelArg(cl_kernel.kernel()(), i, arg.scalar_bytes(), arg.value.data());
    // The call's description is put together only for an error.
    if (status != CL_SUCCESS) {
      check(status, "clSetKernelArg(" + kernel.name() + ", argument " + std::to_string(i) + ")", *label_);
    }
  }
  cl::Event event;
  const cl::NDRange local = range.local ? to_ndrange(*range.local) : cl::NullRange;
  // A slice runs from its first group's global offset, which the prelude's
  // get_group_id adds back.
  const cl::NDRange offset = range.offset() ? to_ndrange(first_item(range)) : cl::NullRange;
  const cl_int status = next_queue().enqueueNDRangeKernel(cl_kernel.kernel(), offset, to_ndrange(range.global),
                                                         local, nullptr, &event);
  if (status != CL_SUCCESS) check(status, "clEnqueueNDRangeKernel(" + kernel.name() + ")", *label_);
  return submitted(std::move(event), kernel.name());
}

void OpenCLQueue::do_wait_for(Event& event) {
  const auto* cl_event = dynamic_cast<const OpenCLEvent*>(&event);
  const auto& device = static_cast<const OpenCLDevice&>(this->device());
  if (cl_event == nullptr || cl_event->event().getInfo<CL_EVENT_CONTEXT>()() != device.context()()) {
    // Only events of this context may enter an OpenCL wait list; for others
    // (another backend or OpenCL platform) the host has to wait.
    event.wait();
    return;
  }
  const std::vector<cl::Event> wait_list{cl_event->event()};
  check(current_->enqueueBarrierWithWaitList(&wait_list), "clEnqueueBarrierWithWaitList", *label_);
}

void OpenCLQueue::do_finish() {
  // The current queue's commands wait for the other's, which finish first.
  check(current_->finish(), "clFinish", *label_);
}

}  // namespace alloy::opencl
