// Device-level operations of the stream-model backends.
#include "stream_device.hpp"

#include <cstring>

#include "alloy/error.hpp"
#include "stream_check.hpp"
#include "stream_memory.hpp"
#include "stream_program.hpp"
#include "stream_queue.hpp"

namespace alloy::stream {

StreamDevice::StreamDevice(const StreamApi& api, int ordinal, DeviceInfo info)
    : Device(std::move(info)), api_(api) {
  ref_.ordinal = ordinal;
  check(api_, api_.retain_context(ordinal, &ref_.context), api_.retain_context.name, label());
  try {
    make_current();
    check(api_, api_.create_event(&epoch_, true), api_.create_event.name, label());
    // Recorded on the default stream, which waits for nothing yet: the epoch
    // completes at once and precedes every later command.
    check(api_, api_.record_event(epoch_, nullptr), api_.record_event.name, label());
    check(api_, api_.synchronize_event(epoch_), api_.synchronize_event.name, label());
    if (api_.stream_priority_range.function != nullptr) {
      check(api_, api_.stream_priority_range(&least_priority_, &greatest_priority_), api_.stream_priority_range.name,
            label());
    }
  } catch (...) {
    // The destructor does not run for a half-built object.
    if (epoch_ != nullptr) api_.destroy_event(epoch_);
    api_.release_context(ordinal);
    throw;
  }
}

StreamDevice::~StreamDevice() {
  // While the context lives: cuFile's driver frees its buffers in it.
  direct_storage_.driver.reset();
  if (epoch_ != nullptr) {
    check_in_destructor(api_, api_.make_current(ref_), api_.make_current.name, label());
    check_in_destructor(api_, api_.destroy_event(epoch_), api_.destroy_event.name, label());
  }
  check_in_destructor(api_, api_.release_context(ref_.ordinal), api_.release_context.name, label());
}

void StreamDevice::make_current() const {
  check(api_, api_.make_current(ref_), api_.make_current.name, label());
}

bool StreamDevice::shares_memory_with(const Device& other) const {
  // Peer copies work between any two devices of one API in a process; they
  // go through host memory where the devices have no direct path.
  const auto* other_device = dynamic_cast<const StreamDevice*>(&other);
  return other_device != nullptr && &other_device->api_ == &api_;
}

std::unique_ptr<Queue> StreamDevice::do_create_queue(QueuePriority priority) {
  return std::make_unique<StreamQueue>(*this, ranks_queues() ? priority : QueuePriority::normal);
}

int StreamDevice::stream_priority(QueuePriority priority) const {
  switch (priority) {
    case QueuePriority::high: return greatest_priority_;
    case QueuePriority::low: return least_priority_;
    case QueuePriority::normal: break;
  }
  return least_priority_ + (greatest_priority_ - least_priority_) / 2;
}

std::unique_ptr<DeviceBuffer> StreamDevice::do_allocate(std::size_t bytes) {
  return std::make_unique<StreamBuffer>(*this, bytes);
}

std::unique_ptr<HostBuffer> StreamDevice::do_allocate_host(std::size_t bytes) {
  return std::make_unique<StreamHostBuffer>(*this, bytes);
}

std::unique_ptr<HostRegistration> StreamDevice::do_register_host(void* data, std::size_t bytes) {
  if (api_.register_host.function == nullptr) return nullptr;
  return std::make_unique<StreamHostRegistration>(*this, data, bytes);
}

DirectFileOpening StreamDevice::do_open_direct_file(const std::filesystem::path& path) {
  return open_stream_direct_file(*this, direct_storage_, path);
}

std::shared_ptr<Program> StreamDevice::do_build_program(const ProgramSource& source,
                                                        const ComposedSource& composed) {
  CompileResult compiled =
      api_.compile(composed.text, source.name, composed.compiler_options, info().architecture);
  if (!compiled.ok) {
    throw CompileError(source.name, declared_kernel_names(source.source), label(),
                       api_.compiler + " (" + compiled.target + "): " + compiled.log);
  }
  return std::make_shared<StreamProgram>(*this, source, std::move(compiled.binary));
}

std::shared_ptr<Program> StreamDevice::do_load_program(const ProgramSource& source,
                                                       const ComposedSource&,
                                                       std::span<const std::byte> binary) {
  // The loaders take a pointer without a size: an ELF image (cubin, AMD code
  // object) carries its own, PTX text must end in NUL, or they read past it.
  const bool is_elf = binary.size() >= 4 && std::memcmp(binary.data(), "\x7f" "ELF", 4) == 0;
  const bool is_text = !binary.empty() && binary.back() == std::byte{0};
  if (!is_elf && !is_text) {
    throw InvalidArgument("load of " + source.name + " on " + label() +
                          ": the binary is neither an ELF image nor NUL-terminated PTX");
  }
  return std::make_shared<StreamProgram>(*this, source,
                                         std::vector<std::byte>(binary.begin(), binary.end()));
}

}  // namespace alloy::stream
