// Allocation and release of CUDA/HIP device and pinned host memory.
#include "stream_memory.hpp"

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "stream_check.hpp"
#include "stream_device.hpp"

namespace alloy::stream {

StreamBuffer::StreamBuffer(StreamDevice& device, std::size_t bytes)
    : DeviceBuffer(device, bytes), device_(device) {
  const StreamApi& api = device.api();
  device.make_current();
  const Status status = api.allocate(&address_, bytes);
  if (status == api.out_of_memory) {
    throw OutOfDeviceMemory(api.api + " call " + api.allocate.name + " failed with " +
                            api.status_name(status) + " on " + device.label() + " for " +
                            std::to_string(bytes) + " bytes; free buffers or use smaller ones");
  }
  check(api, status, api.allocate.name, device.label());
}

StreamBuffer::~StreamBuffer() {
  const StreamApi& api = device_.api();
  check_in_destructor(api, api.make_current(device_.ref()), api.make_current.name, device_.label());
  check_in_destructor(api, api.free(address_), api.free.name, device_.label());
}

StreamHostBuffer::StreamHostBuffer(StreamDevice& device, std::size_t bytes)
    : HostBuffer(bytes), device_(device) {
  const StreamApi& api = device.api();
  device.make_current();
  check(api, api.allocate_host(&data_, bytes), api.allocate_host.name, device.label());
}

StreamHostBuffer::~StreamHostBuffer() {
  const StreamApi& api = device_.api();
  check_in_destructor(api, api.make_current(device_.ref()), api.make_current.name, device_.label());
  check_in_destructor(api, api.free_host(data_), api.free_host.name, device_.label());
}

StreamHostRegistration::StreamHostRegistration(StreamDevice& device, void* data, std::size_t bytes)
    : HostRegistration(data, bytes), device_(device) {
  const StreamApi& api = device.api();
  device.make_current();
  const Status status = api.register_host(data, bytes);
  if (status != api.success && status == api.already_registered) {
    // An in-place pipeline, memory from allocate_host or a range a transport
    // registered: page-locked already, which is what the caller wants. The
    // part outside it, if any, is copied as pageable memory is: correct,
    // only slower.
    set_locked_already();
    log_note(api.api + " call " + api.register_host.name + " on " + device.label() + ": " +
             std::to_string(bytes) + " bytes overlap memory that is page-locked already (" +
             api.status_name(status) + "); used as it is");
    return;
  }
  check(api, status, api.register_host.name, device.label());
}

StreamHostRegistration::~StreamHostRegistration() {
  if (was_locked_already()) return;
  const StreamApi& api = device_.api();
  // Never throws: a registration may end during unwinding or at exit.
  check_in_destructor(api, api.make_current(device_.ref()), api.make_current.name, device_.label());
  check_in_destructor(api, api.unregister_host(data()), api.unregister_host.name, device_.label());
}

}  // namespace alloy::stream
