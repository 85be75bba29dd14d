// Opening files for GPUDirect Storage reads, and the reads, over the
// stream model's DirectStorageApi table. Every refusal on the way (no such
// library for the API, the library, its driver, the file system) becomes a
// reason naming the call, the vendor's code and what to do.
//
// Device buffers are read unregistered: cuFile then moves the bytes through
// its own pinned device buffers, one copy at device-memory speed (TB/s)
// behind storage at GB/s. Registering would pin each destination in BAR1
// space, which is small on many GPUs, for as long as the executor keeps the
// replica, and would have to be undone before every free and eviction.
#include "stream_direct_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "alloy/error.hpp"
#include "alloy/log.hpp"
#include "stream_device.hpp"
#include "stream_memory.hpp"

namespace alloy::stream {
namespace {

std::string failed(const DirectStorageApi& api, const char* call, StorageStatus status) {
  std::string text = std::string(call) + " failed with " + api.status_name(status) + " (" +
                     std::to_string(status.code) + ")";
  if (const std::string hint = api.hint(status); !hint.empty()) text += ": " + hint;
  return text;
}

class StreamDirectFile final : public DirectFile {
 public:
  StreamDirectFile(StreamDevice& device, const std::filesystem::path& path, std::size_t size, int fd,
                   StorageHandle handle, std::shared_ptr<StorageDriver> driver)
      : DirectFile(device, path, size), device_(device), fd_(fd), handle_(handle), driver_(std::move(driver)) {}

  ~StreamDirectFile() override {
    const DirectStorageApi& api = storage();
    try {
      device_.make_current();
    } catch (const Error& error) {
      log_warning(std::string("closing ") + path().string() + " for direct reads: " + error.what());
    }
    api.handle_deregister(handle_);
    ::close(fd_);
  }

  std::string how() const override { return "GPUDirect Storage (" + storage().library + ")"; }

 private:
  const DirectStorageApi& storage() const { return *device_.api().direct_storage; }

  std::size_t do_read(std::size_t file_offset, DeviceBuffer& into, std::size_t into_offset,
                      std::size_t bytes) override {
    const DirectStorageApi& api = storage();
    const DevicePointer base = dynamic_cast<StreamBuffer&>(into).address();
    device_.make_current();  // cuFile reads into the calling thread's context
    std::size_t done = 0;
    while (done < bytes) {
      const std::int64_t got = api.read(handle_, base, bytes - done, static_cast<std::int64_t>(file_offset + done),
                                        static_cast<std::int64_t>(into_offset + done));
      if (got == 0) break;  // the end of the file
      if (got > 0) {
        done += static_cast<std::size_t>(got);
        continue;
      }
      const std::string what = "reading " + std::to_string(bytes) + " bytes at offset " +
                               std::to_string(file_offset) + " of " + path().string();
      if (got == -1) {
        const int error = errno;
        throw BackendError(api.library, api.read.name, error, std::strerror(error), device_.label(),
                           what + ": the system refused the read; check the file and its file system");
      }
      const StorageStatus status{static_cast<int>(-got), 0};
      const std::string hint = api.hint(status);
      throw BackendError(api.library, api.read.name, status.code, api.status_name(status), device_.label(),
                         what + (hint.empty() ? "" : "; " + hint));
    }
    return done;
  }

  StreamDevice& device_;
  int fd_;
  StorageHandle handle_;
  std::shared_ptr<StorageDriver> driver_;  ///< open while the file is
};

/// `path` opened with O_DIRECT, which the library needs, and its size; -1
/// with `refused` saying why not.
int open_direct(const std::filesystem::path& path, std::size_t& size, std::string& refused) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    refused = path.string() + " cannot be opened with O_DIRECT (" + std::strerror(error) +
              "), which GPUDirect Storage needs" +
              (error == EINVAL ? ": its file system does no direct I/O (tmpfs on older kernels, procfs, some "
                                 "FUSE file systems); keep the file on ext4, xfs or a parallel file system "
                                 "GPUDirect Storage supports"
                               : "");
    return -1;
  }
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    refused = path.string() + " is not a regular file; GPUDirect Storage reads regular files only";
    ::close(fd);
    return -1;
  }
  size = static_cast<std::size_t>(status.st_size);
  return fd;
}

}  // namespace

std::shared_ptr<StorageDriver> StorageDriver::acquire(const DirectStorageApi& api, std::string& refused) {
  static std::mutex mutex;
  static std::map<const DirectStorageApi*, std::weak_ptr<StorageDriver>> open;
  std::lock_guard lock(mutex);
  if (std::shared_ptr<StorageDriver> driver = open[&api].lock()) return driver;
  const StorageStatus status = api.driver_open();
  if (status.code != api.success) {
    refused = failed(api, api.driver_open.name, status);
    return nullptr;
  }
  auto driver = std::make_shared<StorageDriver>(api);
  open[&api] = driver;
  return driver;
}

StorageDriver::~StorageDriver() {
  const StorageStatus status = api_.driver_close();
  if (status.code != api_.success) log_warning(failed(api_, api_.driver_close.name, status) + "; ignored");
}

DirectFileOpening open_stream_direct_file(StreamDevice& device, DirectStorageState& state,
                                          const std::filesystem::path& path) {
  const StreamApi& api = device.api();
  if (api.direct_storage == nullptr) {
    return {nullptr, api.api + " devices read no file into device memory directly: GPUDirect Storage "
                               "(cuFile) is NVIDIA's, for CUDA devices"};
  }
  const DirectStorageApi& storage = *api.direct_storage;
  const detail::HandledErrorScope handled;  // failures become the reason
  try {
    if (std::string why = storage.unavailable(); !why.empty()) return {nullptr, std::move(why)};
    std::shared_ptr<StorageDriver> driver;
    {
      std::lock_guard lock(state.mutex);
      if (!state.asked) {
        state.asked = true;
        device.make_current();
        state.driver = StorageDriver::acquire(storage, state.refused);
      }
      if (!state.driver) return {nullptr, state.refused};
      driver = state.driver;
    }
    std::string refused;
    std::size_t size = 0;
    const int fd = open_direct(path, size, refused);
    if (fd < 0) return {nullptr, std::move(refused)};
    device.make_current();
    StorageHandle handle = nullptr;
    if (const StorageStatus status = storage.handle_register(fd, &handle); status.code != storage.success) {
      ::close(fd);
      return {nullptr, path.string() + ": " + failed(storage, storage.handle_register.name, status)};
    }
    return {std::make_unique<StreamDirectFile>(device, path, size, fd, handle, std::move(driver)), ""};
  } catch (const std::exception& error) {
    return {nullptr, error.what()};
  }
}

}  // namespace alloy::stream
