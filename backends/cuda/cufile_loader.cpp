// Opens libcufile at run time and resolves the cuFile calls by name, where
// the build found cufile.h (ALLOY_HAVE_CUFILE); else the table says the
// build has none.
#include "cufile_loader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "cuda_driver.hpp"
#include "cufile_status.hpp"

#if ALLOY_HAVE_CUFILE
#include <cufile.h>
#endif

#ifndef ALLOY_CUFILE_LIBRARY
#define ALLOY_CUFILE_LIBRARY ""
#endif

namespace alloy::cuda {
namespace {

using stream::DevicePointer;
using stream::StorageHandle;
using stream::StorageStatus;

/// The CUDA driver's name for a code, where the plugin loaded the driver.
std::string cuda_error_name(int code) { return error_name(static_cast<CUresult>(code)); }

std::string status_name(StorageStatus status) { return stream::cufile_status_name(status, cuda_error_name); }

#if ALLOY_HAVE_CUFILE

std::string refusal(const char* call, StorageStatus status) {
  std::string text = std::string(call) + " failed with " + status_name(status) + " (" +
                     std::to_string(status.code) + ")";
  if (const std::string hint = stream::cufile_hint(status); !hint.empty()) text += ": " + hint;
  return text;
}

/// libcufile 1.20's cuFileDriverOpen reads /proc/modules (to find nvidia-fs)
/// until the stream ends, and one that never opened never ends: without the
/// file the call spins for good. Said instead of calling it.
std::string driver_cannot_return() {
  if (::access("/proc/modules", R_OK) == 0) return "";
  return std::string("cuFileDriverOpen is not called: /proc/modules cannot be read (") + std::strerror(errno) +
         "), and libcufile's driver open never returns without it; run where /proc is mounted in full";
}

// Every cuFile call the table makes. cufile.h maps cuFileDriverClose to
// cuFileDriverClose_v2; the list is expanded after that mapping, so the
// looked-up names follow it, as the CUDA driver's do.
#define ALLOY_CUFILE_CALLS(X)                                                                        \
  X(cuFileDriverOpen) X(cuFileDriverClose) X(cuFileHandleRegister) X(cuFileHandleDeregister)         \
  X(cuFileBufRegister) X(cuFileBufDeregister) X(cuFileRead)
#define ALLOY_CUFILE_MEMBER(function) decltype(&::function) function = nullptr;
#define ALLOY_CUFILE_NAME(function) ALLOY_CUFILE_NAME_EXPANDED(function)
#define ALLOY_CUFILE_NAME_EXPANDED(function) #function

struct Calls {
  ALLOY_CUFILE_CALLS(ALLOY_CUFILE_MEMBER)
};

// The codes alloy's own table names are cufile.h's.
static_assert(static_cast<int>(CU_FILE_SUCCESS) == stream::cufile_success);
static_assert(static_cast<int>(CU_FILE_DRIVER_NOT_INITIALIZED) == stream::cufile_driver_not_initialized);
static_assert(static_cast<int>(CU_FILE_PLATFORM_NOT_SUPPORTED) == stream::cufile_platform_not_supported);
static_assert(static_cast<int>(CU_FILE_IO_NOT_SUPPORTED) == stream::cufile_io_not_supported);
static_assert(static_cast<int>(CU_FILE_CUDA_DRIVER_ERROR) == stream::cufile_cuda_driver_error);
static_assert(static_cast<int>(CU_FILE_CUDA_POINTER_RANGE_ERROR) == stream::cufile_cuda_pointer_range_error);
static_assert(static_cast<int>(CU_FILE_INVALID_FILE_TYPE) == stream::cufile_invalid_file_type);
static_assert(static_cast<int>(CU_FILE_INVALID_FILE_OPEN_FLAG) == stream::cufile_invalid_file_open_flag);
static_assert(static_cast<int>(CU_FILE_INVALID_VALUE) == stream::cufile_invalid_value);
static_assert(static_cast<int>(CU_FILE_HANDLE_NOT_REGISTERED) == stream::cufile_handle_not_registered);

/// Opens `library` into `calls`: "" or what went wrong. Never closed again:
/// cuFile keeps threads and state for the process's life.
std::string open_library(const char* library, Calls& calls) {
  void* handle = ::dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return std::string(library) + " cannot be loaded (" + (why ? why : "unknown error") + ")";
  }
  std::string missing;
#define ALLOY_CUFILE_RESOLVE(function)                                                                   \
  calls.function = reinterpret_cast<decltype(calls.function)>(::dlsym(handle, ALLOY_CUFILE_NAME(function))); \
  if (calls.function == nullptr) missing += std::string(missing.empty() ? "" : ", ") + ALLOY_CUFILE_NAME(function);
  ALLOY_CUFILE_CALLS(ALLOY_CUFILE_RESOLVE)
#undef ALLOY_CUFILE_RESOLVE
  if (!missing.empty()) {
    return std::string(library) + " lacks " + missing +
           ": it is older than the cufile.h this backend was built with; install a newer GPUDirect Storage "
           "(nvidia-cufile)";
  }
  return "";
}

Calls loaded;

std::string load_problem() {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [] {
    problem = open_library("libcufile.so.0", loaded);
    if (!problem.empty() && *ALLOY_CUFILE_LIBRARY != '\0') {
      // Where the build found it: a wheel unpacked into a folder of its own.
      const std::string built = open_library(ALLOY_CUFILE_LIBRARY, loaded);
      problem = built.empty() ? "" : problem + "; " + built;
    }
    if (!problem.empty()) {
      problem += "; install NVIDIA's GPUDirect Storage (cuFile) or put libcufile.so.0 on LD_LIBRARY_PATH";
    }
  });
  return problem;
}

std::string unavailable() {
  if (std::string problem = load_problem(); !problem.empty()) return problem;
  return driver_cannot_return();
}

StorageStatus status_of(CUfileError_t status) {
  return {static_cast<int>(status.err), static_cast<int>(status.cu_err)};
}

StorageStatus driver_open() { return status_of(loaded.cuFileDriverOpen()); }
StorageStatus driver_close() { return status_of(loaded.cuFileDriverClose()); }

StorageStatus handle_register(int fd, StorageHandle* handle) {
  CUfileDescr_t description{};
  description.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
  description.handle.fd = fd;
  CUfileHandle_t registered = nullptr;
  const CUfileError_t status = loaded.cuFileHandleRegister(&registered, &description);
  *handle = registered;
  return status_of(status);
}

void handle_deregister(StorageHandle handle) { loaded.cuFileHandleDeregister(handle); }

StorageStatus buffer_register(DevicePointer base, std::size_t bytes) {
  return status_of(loaded.cuFileBufRegister(reinterpret_cast<const void*>(base), bytes, 0));
}

StorageStatus buffer_deregister(DevicePointer base) {
  return status_of(loaded.cuFileBufDeregister(reinterpret_cast<const void*>(base)));
}

std::int64_t read(StorageHandle handle, DevicePointer base, std::size_t bytes, std::int64_t file_offset,
                  std::int64_t buffer_offset) {
  return loaded.cuFileRead(handle, reinterpret_cast<void*>(base), bytes, static_cast<off_t>(file_offset),
                           static_cast<off_t>(buffer_offset));
}

stream::DirectStorageApi make_table() {
  stream::DirectStorageApi api;
  api.library = "cuFile";
  api.success = CU_FILE_SUCCESS;
  api.unavailable = unavailable;
  api.status_name = status_name;
  api.hint = stream::cufile_hint;
  api.driver_open = {driver_open, "cuFileDriverOpen"};
  api.driver_close = {driver_close, "cuFileDriverClose"};
  api.handle_register = {handle_register, "cuFileHandleRegister"};
  api.handle_deregister = {handle_deregister, "cuFileHandleDeregister"};
  api.buffer_register = {buffer_register, "cuFileBufRegister"};
  api.buffer_deregister = {buffer_deregister, "cuFileBufDeregister"};
  api.read = {read, "cuFileRead"};
  return api;
}

#else  // !ALLOY_HAVE_CUFILE

std::string not_built() {
  return "this CUDA backend was built without cufile.h, so it has no GPUDirect Storage: build it where NVIDIA's "
         "cuFile is found (scripts/setup-common.sh's alloy_install_cufile puts it in /opt/alloy/cufile; "
         "-DALLOY_CUFILE_ROOT=<folder> names another)";
}

stream::DirectStorageApi make_table() {
  stream::DirectStorageApi api;
  api.library = "cuFile";
  api.unavailable = not_built;
  api.status_name = status_name;
  api.hint = stream::cufile_hint;
  return api;
}

#endif

}  // namespace

const stream::DirectStorageApi& cufile_api() {
  static const stream::DirectStorageApi table = make_table();
  return table;
}

std::string check_cufile_library([[maybe_unused]] const char* library) {
#if ALLOY_HAVE_CUFILE
  Calls calls;
  return open_library(library, calls);
#else
  return not_built();
#endif
}

std::string try_cufile_driver([[maybe_unused]] const char* library) {
#if ALLOY_HAVE_CUFILE
  Calls calls;
  if (std::string problem = open_library(library, calls); !problem.empty()) return problem;
  if (std::string problem = driver_cannot_return(); !problem.empty()) return problem;
  const StorageStatus status = status_of(calls.cuFileDriverOpen());
  if (status.code != CU_FILE_SUCCESS) return refusal("cuFileDriverOpen", status);
  calls.cuFileDriverClose();
  return "";
#else
  return not_built();
#endif
}

const char* built_cufile_library() { return ALLOY_CUFILE_LIBRARY; }

}  // namespace alloy::cuda
