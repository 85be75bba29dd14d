// Files read straight into CUDA device memory through a GPUDirect Storage
// table (cuFile, or the emulated device's model of it).
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "alloy/backend/direct_file.hpp"
#include "direct_storage_api.hpp"

namespace alloy::stream {

class StreamDevice;

/// The library's driver, opened once for all devices of a table that use
/// it at the time, and closed when the last of them lets it go.
class StorageDriver {
 public:
  /// The open driver of `api`, shared; null with `refused` saying why when
  /// the library refuses to open it. Call with a device current.
  static std::shared_ptr<StorageDriver> acquire(const DirectStorageApi& api, std::string& refused);
  explicit StorageDriver(const DirectStorageApi& api) : api_(api) {}
  ~StorageDriver();
  StorageDriver(const StorageDriver&) = delete;
  StorageDriver& operator=(const StorageDriver&) = delete;

 private:
  const DirectStorageApi& api_;
};

/// What a StreamDevice keeps for its direct reads: the driver it opened, or
/// why it could not, asked once for the device's life.
struct DirectStorageState {
  std::mutex mutex;
  bool asked = false;
  std::shared_ptr<StorageDriver> driver;
  std::string refused;
};

/// StreamDevice's open_direct_file: never throws; every refusal is a reason.
DirectFileOpening open_stream_direct_file(StreamDevice& device, DirectStorageState& state,
                                          const std::filesystem::path& path);

}  // namespace alloy::stream
