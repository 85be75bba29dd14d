// Range and launch checks every backend's queue shares.
#include "alloy/backend/queue.hpp"

#include <algorithm>
#include <cstdint>

#include "alloy/backend/device.hpp"
#include "alloy/error.hpp"

namespace alloy {

const char* to_string(QueuePriority priority) {
  switch (priority) {
    case QueuePriority::high: return "high";
    case QueuePriority::normal: return "normal";
    case QueuePriority::low: return "low";
  }
  return "unknown";
}

namespace {

void check_range(const Device& device, const char* operation, const DeviceBuffer& buffer,
                 std::size_t offset, std::size_t bytes) {
  if (offset > buffer.size() || bytes > buffer.size() - offset) {
    throw InvalidArgument(std::string(operation) + " on " + device.label() + ": bytes [" +
                          std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                          ") lie outside the buffer of " + std::to_string(buffer.size()) +
                          " bytes");
  }
}

void check_same_memory(const Device& device, const char* operation, const DeviceBuffer& buffer) {
  if (!device.shares_memory_with(buffer.device())) {
    throw InvalidArgument(std::string(operation) + " on " + device.label() +
                          ": the buffer belongs to " + buffer.device().label() +
                          ", which this queue's device cannot reach directly; copy through "
                          "host memory");
  }
}

/// Every dimension at least 1, and a total that fits in 64 bits.
void check_extent(const Device& device, const Kernel& kernel, const char* which,
                  const Extent& extent) {
  std::size_t total = 1;
  for (unsigned d = 0; d < 3; ++d) {
    if (extent[d] == 0 || __builtin_mul_overflow(total, extent[d], &total)) {
      throw InvalidArgument("launch of '" + kernel.name() + "' on " + device.label() + ": " +
                            which + " size " + extent.to_string() +
                            (extent[d] == 0 ? " has an empty dimension; every dimension needs "
                                              "at least one work-item"
                                            : " counts more than 2^64 work-items; split the launch "
                                              "into smaller ones"));
    }
  }
}

/// Transfers from the host and fills act on this device's memory only:
/// only device-to-device copies may reach another device.
void check_own_buffer(const Device& device, const char* operation, const DeviceBuffer& buffer) {
  if (&buffer.device() != &device) {
    throw InvalidArgument(std::string(operation) + " on " + device.label() +
                          ": the buffer belongs to " + buffer.device().label() +
                          "; use a queue of that device");
  }
}

/// A slice past the first work-group needs a kernel that keeps its ids.
void check_slice(const Device& device, const Kernel& kernel, const LaunchRange& range) {
  const std::string launch = "launch of '" + kernel.name() + "' on " + device.label() + " as a slice";
  if (!range.local) throw InvalidArgument(launch + ": a slice needs a local size");
  if (!kernel.program().sliceable()) {
    throw InvalidArgument(launch + ": program " + kernel.program().source().name +
                          " cannot run in slices (docs/kernels.md, \"Slices\"); launch the whole range");
  }
  for (unsigned d = 0; d < 3; ++d) {
    if (range.first_group[d] > UINT32_MAX) {
      throw InvalidArgument(launch + ": its first group " + std::to_string(range.first_group[d]) +
                            " along dimension " + std::to_string(d) + " exceeds 2^32 - 1");
    }
  }
}

/// Scalars against the parameter sizes the backend reported, where it did:
/// a launch copies as many bytes as the parameter has, so a narrower value
/// would pass bytes that are not the caller's.
void check_argument_bytes(const Device& device, const Kernel& kernel, std::span<const KernelArg> args) {
  const std::vector<std::size_t>& expected = kernel.attributes().argument_bytes;
  if (expected.size() != args.size()) return;  // the count check speaks for this
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::size_t given = args[i].kind == KernelArg::Kind::buffer ? sizeof(void*) : args[i].scalar_bytes();
    if (given == expected[i]) continue;
    throw InvalidArgument("launch of '" + kernel.name() + "' on " + device.label() + ": parameter " +
                          std::to_string(i) + " takes " + std::to_string(expected[i]) + " bytes, got " +
                          (args[i].kind == KernelArg::Kind::buffer ? "a buffer" : "a " + std::string(to_string(args[i].scalar_type))) +
                          " (" + std::to_string(given) + " bytes); pass a value of the parameter's type");
  }
}

void check_local_size(const Device& device, const Kernel& kernel, const LaunchRange& range) {
  const DeviceInfo& info = device.info();
  const Extent& local = *range.local;
  if (local.dimensions != range.global.dimensions) {
    throw InvalidArgument("launch of '" + kernel.name() + "' on " + device.label() +
                          ": global size " + range.global.to_string() + " and local size " +
                          local.to_string() +
                          " have different numbers of dimensions; give both the same");
  }
  const std::size_t kernel_limit = kernel.attributes().max_work_group_size;
  const std::size_t limit = std::min(info.max_work_group_size, kernel_limit);
  if (local.count() == 0 || local.count() > limit) {
    throw InvalidArgument("launch of '" + kernel.name() + "' on " + device.label() +
                          ": local size " + local.to_string() + " = " +
                          std::to_string(local.count()) +
                          " work-items; the kernel takes at most " +
                          std::to_string(kernel_limit) + " and the device at most " +
                          std::to_string(info.max_work_group_size) +
                          " per work-group; choose a smaller local size");
  }
  for (unsigned d = 0; d < local.dimensions; ++d) {
    if (local[d] > info.max_work_item_sizes[d]) {
      throw InvalidArgument("launch of '" + kernel.name() + "' on " + device.label() +
                            ": local size " + local.to_string() + " exceeds the device's " +
                            std::to_string(info.max_work_item_sizes[d]) +
                            " work-items in dimension " + std::to_string(d));
    }
    if (range.global[d] % local[d] != 0) {
      throw InvalidArgument("launch of '" + kernel.name() + "': global size " +
                            range.global.to_string() + " is not a multiple of local size " +
                            local.to_string() + " in dimension " + std::to_string(d) +
                            "; round the global size up and bounds-check in the kernel");
    }
  }
}

}  // namespace

template <class Submit>
std::shared_ptr<Event> Queue::observed(SubmittedCommand::Type type, std::size_t bytes, const Kernel* kernel,
                                       const LaunchRange* range, Submit&& submit) {
  if (observer_ == nullptr) return submit();
  const auto enqueued = std::chrono::steady_clock::now();
  std::shared_ptr<Event> event = submit();
  observer_->submitted(*this, {type, bytes, kernel, range, enqueued, event});
  return event;
}

std::shared_ptr<Event> Queue::write(DeviceBuffer& dst, std::size_t dst_offset, const void* src,
                                    std::size_t bytes) {
  check_own_buffer(device_, "write", dst);
  check_range(device_, "write", dst, dst_offset, bytes);
  return observed(SubmittedCommand::Type::write, bytes, nullptr, nullptr,
                  [&] { return do_write(dst, dst_offset, src, bytes); });
}

std::shared_ptr<Event> Queue::read(const DeviceBuffer& src, std::size_t src_offset, void* dst,
                                   std::size_t bytes) {
  check_own_buffer(device_, "read", src);
  check_range(device_, "read", src, src_offset, bytes);
  return observed(SubmittedCommand::Type::read, bytes, nullptr, nullptr,
                  [&] { return do_read(src, src_offset, dst, bytes); });
}

std::shared_ptr<Event> Queue::copy(const DeviceBuffer& src, std::size_t src_offset,
                                   DeviceBuffer& dst, std::size_t dst_offset, std::size_t bytes) {
  check_same_memory(device_, "copy", src);
  check_same_memory(device_, "copy", dst);
  check_range(device_, "copy (source)", src, src_offset, bytes);
  check_range(device_, "copy (destination)", dst, dst_offset, bytes);
  return observed(SubmittedCommand::Type::copy, bytes, nullptr, nullptr,
                  [&] { return do_copy(src, src_offset, dst, dst_offset, bytes); });
}

std::shared_ptr<Event> Queue::fill(DeviceBuffer& dst, std::size_t offset, const void* pattern,
                                   std::size_t pattern_bytes, std::size_t bytes) {
  check_own_buffer(device_, "fill", dst);
  check_range(device_, "fill", dst, offset, bytes);
  if (pattern_bytes != 1 && pattern_bytes != 2 && pattern_bytes != 4) {
    throw InvalidArgument("fill on " + device_.label() + ": a pattern of " +
                          std::to_string(pattern_bytes) +
                          " bytes; every backend supports 1, 2 or 4");
  }
  if (bytes % pattern_bytes != 0 || offset % pattern_bytes != 0) {
    throw InvalidArgument("fill on " + device_.label() + ": offset " + std::to_string(offset) +
                          " and size " + std::to_string(bytes) +
                          " must be multiples of the pattern size " +
                          std::to_string(pattern_bytes));
  }
  return observed(SubmittedCommand::Type::fill, bytes, nullptr, nullptr,
                  [&] { return do_fill(dst, offset, pattern, pattern_bytes, bytes); });
}

std::shared_ptr<Event> Queue::launch(const Kernel& kernel, const LaunchRange& range,
                                     std::span<const KernelArg> args) {
  if (&kernel.program().device() != &device_) {
    throw InvalidArgument("launch of '" + kernel.name() + "' on " + device_.label() +
                          ": the kernel was built for " + kernel.program().device().label() +
                          "; build the program for each device");
  }
  // The declaration names parameters, so it speaks first; the backend's count
  // also covers kernels whose declaration could not be read.
  if (kernel.signature()) check_kernel_args(*kernel.signature(), args.data(), args.size());
  const std::optional<std::size_t>& expected = kernel.attributes().argument_count;
  if (expected && *expected != args.size()) {
    throw InvalidArgument("launch of '" + kernel.name() + "' on " + device_.label() + ": the kernel takes " +
                          std::to_string(*expected) + " arguments, got " +
                          std::to_string(args.size()) + "; pass one value per parameter in order");
  }
  check_argument_bytes(device_, kernel, args);
  for (std::size_t i = 0; i < args.size(); ++i) {
    // Stricter than copies: a CUDA or HIP kernel cannot dereference another
    // device's memory without peer access, so no backend may allow it.
    if (args[i].kind == KernelArg::Kind::buffer && &args[i].buffer->device() != &device_) {
      throw InvalidArgument("launch of '" + kernel.name() + "' on " + device_.label() +
                            ": argument " + std::to_string(i) + " is a buffer of " +
                            args[i].buffer->device().label() +
                            "; copy it to this device first (Queue::copy)");
    }
  }
  check_extent(device_, kernel, "global", range.global);
  if (range.local) check_extent(device_, kernel, "local", *range.local);
  if (range.offset()) check_slice(device_, kernel, range);
  if (range.local) check_local_size(device_, kernel, range);
  return observed(SubmittedCommand::Type::launch, 0, &kernel, &range,
                  [&] { return do_launch(kernel, range, args); });
}

void Queue::wait_for(Event& event) { do_wait_for(event); }

void Queue::finish() { do_finish(); }

}  // namespace alloy
