// Device and host memory of emulated devices, and the copies and fills
// between them, with the CUDA or HIP driver's rules for each
// (docs/emulated.md).
#pragma once

#include <cstddef>

#include "stream_api.hpp"

namespace alloy::emulation {

stream::Status allocate(stream::DevicePointer* address, std::size_t bytes);
stream::Status free_memory(stream::DevicePointer address);
stream::Status allocate_host(void** data, std::size_t bytes);
stream::Status free_host(void* data);
stream::Status register_host(void* data, std::size_t bytes);
stream::Status unregister_host(void* data);

stream::Status copy_to_device(stream::DevicePointer to, const void* from, std::size_t bytes, stream::Handle stream);
stream::Status copy_to_host(void* to, stream::DevicePointer from, std::size_t bytes, stream::Handle stream);
stream::Status copy_on_device(stream::DevicePointer to, stream::DevicePointer from, std::size_t bytes,
                              stream::Handle stream);
stream::Status copy_peer(stream::DevicePointer to, const stream::DeviceRef&, stream::DevicePointer from,
                         const stream::DeviceRef&, std::size_t bytes, stream::Handle stream);
stream::Status fill8(stream::DevicePointer to, unsigned char value, std::size_t count, stream::Handle stream);
stream::Status fill16(stream::DevicePointer to, unsigned short value, std::size_t count, stream::Handle stream);
stream::Status fill32(stream::DevicePointer to, unsigned int value, std::size_t count, stream::Handle stream);

}  // namespace alloy::emulation
