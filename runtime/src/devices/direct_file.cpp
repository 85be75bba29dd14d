// The checks every direct file read shares, and the answer of devices
// without such reads.
#include "alloy/backend/direct_file.hpp"

#include "alloy/backend/device.hpp"
#include "alloy/error.hpp"

namespace alloy {

void DirectFile::read(std::size_t file_offset, DeviceBuffer& into, std::size_t into_offset, std::size_t bytes) {
  const std::string what = "direct read of " + std::to_string(bytes) + " bytes at offset " +
                           std::to_string(file_offset) + " of " + path_.string() + " into " + device_.label();
  if (&into.device() != &device_) {
    throw InvalidArgument(what + ": the buffer is on " + into.device().label() +
                          "; open the file on that device (Device::open_direct_file)");
  }
  if (into_offset > into.size() || bytes > into.size() - into_offset) {
    throw InvalidArgument(what + ": bytes [" + std::to_string(into_offset) + ", " +
                          std::to_string(into_offset + bytes) + ") do not lie in the buffer of " +
                          std::to_string(into.size()) + " bytes");
  }
  if (file_offset > size_ || bytes > size_ - file_offset) {
    throw Error(what + ": the file had " + std::to_string(size_) +
                " bytes when it was opened; read within it, or open it again if it grew");
  }
  if (bytes == 0) return;
  const std::size_t got = do_read(file_offset, into, into_offset, bytes);
  if (got != bytes) {
    throw Error(what + ": " + std::to_string(got) + " of " + std::to_string(bytes) +
                " bytes came back; was the file truncated while it was read?");
  }
}

DirectFileOpening Device::do_open_direct_file(const std::filesystem::path&) {
  return {nullptr, "the " + info().backend +
                       " backend reads no file into device memory directly: GPUDirect Storage (cuFile) is "
                       "NVIDIA's, for CUDA devices"};
}

}  // namespace alloy
