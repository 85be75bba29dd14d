// The emulated cuFile: its driver opens only where the machine model has
// storage (as cuFileDriverOpen needs nvidia-fs), file handles are refused
// where cuFileHandleRegister refuses them (no O_DIRECT, not a regular file,
// a memory file system), and reads land in emulated device memory after
// the modelled time on one storage engine all devices share.
#include "emulated_storage.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "cufile_status.hpp"
#include "emulated_driver.hpp"

namespace alloy::emulation {
namespace {

using stream::StorageHandle;
using stream::StorageStatus;

struct StorageState {
  std::mutex mutex;
  int opens = 0;  ///< driver_open calls not yet closed
};

/// Never destroyed, as the driver's state is not: reads may still run.
StorageState& state() {
  static StorageState* const instance = new StorageState;
  return *instance;
}

/// The storage device the model's bandwidth describes, shared by every
/// emulated device: reads from several threads take turns on it.
Engine& storage_engine() {
  static Engine* const instance = new Engine;
  return *instance;
}

struct FileHandle {
  int fd;
};

bool driver_open_now() {
  std::lock_guard lock(state().mutex);
  return state().opens > 0;
}

std::string unavailable() {
  if (model()->flavor == Flavor::hip) {
    return "HIP devices read no file into device memory directly (emulated, flavor=hip): GPUDirect Storage "
           "(cuFile) is NVIDIA's, for CUDA devices";
  }
  return "";
}

std::string status_name(StorageStatus status) { return stream::cufile_status_name(status) + " (emulated)"; }

std::string hint(StorageStatus status) {
  std::string text = stream::cufile_hint(status);
  if (status.code == stream::cufile_driver_not_initialized) {
    text += "; emulated devices model GPUDirect Storage where ALLOY_EMULATED_DEVICES gives storage=<GB/s>";
  }
  return text;
}

StorageStatus driver_open() {
  if (model()->storage_bytes_per_second <= 0) return {stream::cufile_driver_not_initialized, 0};
  std::lock_guard lock(state().mutex);
  ++state().opens;
  return {stream::cufile_success, 0};
}

StorageStatus driver_close() {
  std::lock_guard lock(state().mutex);
  if (state().opens == 0) return {stream::cufile_driver_not_initialized, 0};
  --state().opens;
  return {stream::cufile_success, 0};
}

StorageStatus handle_register(int fd, StorageHandle* handle) {
  if (!driver_open_now()) return {stream::cufile_driver_not_initialized, 0};
  const int flags = ::fcntl(fd, F_GETFL);
  struct stat file {};
  if (flags < 0 || ::fstat(fd, &file) != 0) return {stream::cufile_invalid_value, 0};
  if (!S_ISREG(file.st_mode)) return {stream::cufile_invalid_file_type, 0};
  if ((flags & O_DIRECT) == 0) return {stream::cufile_invalid_file_open_flag, 0};
  // Memory file systems have no storage to move data from by DMA: cuFile
  // refuses them outside compat mode.
  struct statfs system {};
  if (::fstatfs(fd, &system) != 0) return {stream::cufile_invalid_value, 0};
  if (system.f_type == TMPFS_MAGIC || system.f_type == RAMFS_MAGIC) return {stream::cufile_io_not_supported, 0};
  *handle = new FileHandle{fd};
  return {stream::cufile_success, 0};
}

void handle_deregister(StorageHandle handle) { delete static_cast<FileHandle*>(handle); }

StorageStatus buffer_register(DevicePointer base, std::size_t bytes) {
  if (!driver_open_now()) return {stream::cufile_driver_not_initialized, 0};
  if (bytes_to_allocation_end(base) < bytes) return {stream::cufile_cuda_pointer_range_error, 0};
  return {stream::cufile_success, 0};
}

StorageStatus buffer_deregister(DevicePointer base) {
  if (bytes_to_allocation_end(base) == 0) return {stream::cufile_invalid_value, 0};
  return {stream::cufile_success, 0};
}

/// Reads through an aligned window, as the descriptor is O_DIRECT: the
/// bytes read (fewer at the end of the file), or -1 with errno set.
std::int64_t read_direct(int fd, std::byte* into, std::size_t bytes, std::int64_t offset) {
  constexpr std::size_t block = 4096;
  constexpr std::size_t window = std::size_t{1} << 20;
  const std::unique_ptr<std::byte, decltype(&std::free)> bounce(
      static_cast<std::byte*>(std::aligned_alloc(block, window)), &std::free);
  if (!bounce) {
    errno = ENOMEM;
    return -1;
  }
  std::size_t done = 0;
  while (done < bytes) {
    const std::int64_t at = offset + static_cast<std::int64_t>(done);
    const std::int64_t start = at / static_cast<std::int64_t>(block) * static_cast<std::int64_t>(block);
    const auto skip = static_cast<std::size_t>(at - start);
    const std::size_t want = std::min(window, (skip + bytes - done + block - 1) / block * block);
    const ssize_t got = ::pread(fd, bounce.get(), want, start);
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (static_cast<std::size_t>(got) <= skip) break;  // the end of the file
    const std::size_t useful = std::min(static_cast<std::size_t>(got) - skip, bytes - done);
    std::memcpy(into + done, bounce.get() + skip, useful);
    done += useful;
    if (static_cast<std::size_t>(got) < want) break;
  }
  return static_cast<std::int64_t>(done);
}

std::int64_t read(StorageHandle handle, DevicePointer base, std::size_t bytes, std::int64_t file_offset,
                  std::int64_t buffer_offset) {
  if (handle == nullptr || file_offset < 0 || buffer_offset < 0) return -stream::cufile_invalid_value;
  if (!driver_open_now()) return -stream::cufile_driver_not_initialized;
  const DevicePointer target = base + static_cast<DevicePointer>(buffer_offset);
  if (bytes_to_allocation_end(target) < bytes) return -stream::cufile_cuda_pointer_range_error;
  const int fd = static_cast<FileHandle*>(handle)->fd;
  const auto held = model();
  const MachineModel& m = *held;
  // A model made since the driver opened may have no storage.
  if (m.storage_bytes_per_second <= 0) return -stream::cufile_driver_not_initialized;
  const double seconds =
      m.transfer_latency_seconds + static_cast<double>(bytes) / m.storage_bytes_per_second + jitter(m);
  std::int64_t result = 0;
  storage_engine().occupy(seconds, [&] {
    if (m.moves_data) {
      result = read_direct(fd, static_cast<std::byte*>(host_address(target)), bytes, file_offset);
      return;
    }
    // Addresses only (data=0): as many bytes as the file has there.
    struct stat file {};
    const std::int64_t size = ::fstat(fd, &file) == 0 ? file.st_size : 0;
    result = std::clamp<std::int64_t>(size - file_offset, 0, static_cast<std::int64_t>(bytes));
  });
  return result;
}

stream::DirectStorageApi make_api() {
  stream::DirectStorageApi api;
  api.library = "cuFile (emulated)";
  api.success = stream::cufile_success;
  api.unavailable = unavailable;
  api.status_name = status_name;
  api.hint = hint;
  api.driver_open = {driver_open, "cuFileDriverOpen"};
  api.driver_close = {driver_close, "cuFileDriverClose"};
  api.handle_register = {handle_register, "cuFileHandleRegister"};
  api.handle_deregister = {handle_deregister, "cuFileHandleDeregister"};
  api.buffer_register = {buffer_register, "cuFileBufRegister"};
  api.buffer_deregister = {buffer_deregister, "cuFileBufDeregister"};
  api.read = {read, "cuFileRead"};
  return api;
}

}  // namespace

const stream::DirectStorageApi& storage_api() {
  static const stream::DirectStorageApi table = make_api();
  return table;
}

}  // namespace alloy::emulation
