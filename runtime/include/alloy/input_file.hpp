// A file that tasks read into buffers (Graph::read_file) and pipelines
// stream (Pipeline::input_file): straight into device memory where the
// device can (GPUDirect Storage), else through host memory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "alloy/backend/direct_file.hpp"

namespace alloy {

class Device;
class DeviceBuffer;

namespace detail {
struct InputFileAccess;
}

struct InputFileOptions {
  /// Reads into a device's memory go straight from storage where the device
  /// opens the file directly (Device::open_direct_file); false: always
  /// through host memory. ALLOY_GPU_DIRECT_STORAGE=0 turns it off too.
  bool direct = true;
};

/// A file opened once for positioned reads from many threads: into host
/// memory (with O_DIRECT where the file system allows it), and into the
/// memory of each device that opens it directly. Each device is asked on
/// its first use, and the answer kept (direct()). Thread-safe. Must not
/// outlive the Runtime of the devices it was used on.
///
///   auto file = alloy::InputFile::open("data.bin");
///   graph.read_file(file, 0, x.whole(), {.name = "load x", .device = 0});
class InputFile {
 public:
  /// Error naming the file and the system's reason when it cannot be opened.
  static std::shared_ptr<InputFile> open(const std::filesystem::path& path, InputFileOptions options = {});
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::filesystem::path& path() const;
  /// Bytes the file had when it was opened.
  std::size_t size() const;
  /// How reads into host memory go: "O_DIRECT reads" or "buffered reads
  /// (the file system refused O_DIRECT: ...)".
  const std::string& host_reads() const;

  /// The file opened on `device` for direct reads, or why it is not: opened
  /// on the first call for the device (the vendor's driver may take a moment
  /// to open then), the same answer after. A reason starts with the device's
  /// label.
  const DirectFileOpening& direct(Device& device) const;

  /// Reads bytes [offset, offset + bytes) into host memory at `into`,
  /// writing nothing beyond. Error naming the file for a range past its end
  /// or a failed read.
  void read(std::size_t offset, void* into, std::size_t bytes) const;
  /// The same into `into` from `into_offset` on, straight from storage:
  /// Error unless direct(into.device()) opened the file.
  void read(std::size_t offset, DeviceBuffer& into, std::size_t into_offset, std::size_t bytes) const;

 private:
  friend struct detail::InputFileAccess;
  struct Impl;
  explicit InputFile(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace alloy
