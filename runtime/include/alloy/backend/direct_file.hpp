// Files read straight from storage into one device's memory (GPUDirect
// Storage), where a backend offers it (Device::open_direct_file).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

namespace alloy {

class Device;
class DeviceBuffer;

/// A file opened for reads into one device's memory without a copy through
/// host memory: NVIDIA's GPUDirect Storage (cuFile) on CUDA devices, or its
/// model on emulated ones. Reads run from several threads at once. Must not
/// outlive its Device's Runtime.
///
///   DirectFileOpening opened = device.open_direct_file("data.bin");
///   if (opened.file) opened.file->read(0, *buffer, 0, bytes);  // else: opened.reason
class DirectFile {
 public:
  DirectFile(Device& device, std::filesystem::path path, std::size_t size)
      : device_(device), path_(std::move(path)), size_(size) {}
  virtual ~DirectFile() = default;
  DirectFile(const DirectFile&) = delete;
  DirectFile& operator=(const DirectFile&) = delete;

  Device& device() const { return device_; }
  const std::filesystem::path& path() const { return path_; }
  /// Bytes the file had when it was opened.
  std::size_t size() const { return size_; }
  /// How the bytes travel, for reports: "GPUDirect Storage (cuFile)".
  virtual std::string how() const = 0;

  /// Reads bytes [file_offset, file_offset + bytes) of the file into `into`
  /// from `into_offset` on; returns once they are there. InvalidArgument for
  /// a buffer of another device or a range outside it; Error naming the
  /// file, the device and the vendor's code for a range past the file's end,
  /// a read that comes back short or one the vendor refuses.
  void read(std::size_t file_offset, DeviceBuffer& into, std::size_t into_offset, std::size_t bytes);

 private:
  /// The bytes read: fewer only where the file ended first. Throws for a
  /// read the vendor refuses.
  virtual std::size_t do_read(std::size_t file_offset, DeviceBuffer& into, std::size_t into_offset,
                              std::size_t bytes) = 0;

  Device& device_;
  std::filesystem::path path_;
  std::size_t size_;
};

/// What Device::open_direct_file gives: the file, or why there is none.
struct DirectFileOpening {
  std::unique_ptr<DirectFile> file;
  /// Empty when `file` is set; else why this device cannot read the file
  /// directly and what would change that, e.g. "cuFileDriverOpen failed with
  /// CU_FILE_DRIVER_NOT_INITIALIZED ...: load the nvidia-fs kernel module ...".
  std::string reason;
};

}  // namespace alloy
