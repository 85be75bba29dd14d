// The calls of a GPUDirect Storage library (NVIDIA's cuFile, or the emulated
// device's model of it) as one table in alloy's own types: the stream model
// reads files into device memory through it without including cufile.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "stream_api.hpp"

namespace alloy::stream {

/// A cuFile status: CUfileOpError, and the CUresult where that is
/// CU_FILE_CUDA_DRIVER_ERROR.
struct StorageStatus {
  int code = 0;
  int driver_code = 0;
};

using StorageHandle = void*;  ///< CUfileHandle_t: a registered file

/// A library call with the vendor's name for it, which reasons and errors report.
template <class Signature>
struct StorageCall;

template <class Result, class... Args>
struct StorageCall<Result(Args...)> {
  Result (*function)(Args...) = nullptr;
  const char* name = "";

  Result operator()(Args... args) const { return function(args...); }
};

/// Buffer registration (buffer_register) pins device memory for the DMA in
/// BAR1 space; reads of unregistered memory bounce through the library's own
/// pinned device buffers, at device-memory speed. StreamDirectFile reads
/// unregistered (stream_direct_file.cpp says why); the registration calls
/// are resolved and checked all the same, so that a route over long-lived
/// registered buffers needs nothing new from the library.
struct DirectStorageApi {
  std::string library;  ///< "cuFile", for reasons and errors
  int success = 0;      ///< CU_FILE_SUCCESS
  /// Why the library cannot be used at all in this process (built without
  /// it, cannot be loaded, lacks calls); empty when it can. Loads it on the
  /// first call.
  std::string (*unavailable)() = nullptr;
  /// "CU_FILE_DRIVER_NOT_INITIALIZED (5001: nvidia-fs driver is not loaded)".
  std::string (*status_name)(StorageStatus) = nullptr;
  /// What to do about a status, or empty.
  std::string (*hint)(StorageStatus) = nullptr;

  StorageCall<StorageStatus()> driver_open;
  StorageCall<StorageStatus()> driver_close;
  /// Registers a file opened with O_DIRECT.
  StorageCall<StorageStatus(int fd, StorageHandle*)> handle_register;
  StorageCall<void(StorageHandle)> handle_deregister;
  StorageCall<StorageStatus(DevicePointer, std::size_t)> buffer_register;
  StorageCall<StorageStatus(DevicePointer)> buffer_deregister;
  /// Reads into device memory at base + buffer_offset on the calling
  /// thread's current device; blocks. The bytes read (fewer at the end of
  /// the file), -1 with errno set, or minus a status code.
  StorageCall<std::int64_t(StorageHandle, DevicePointer base, std::size_t bytes, std::int64_t file_offset,
                           std::int64_t buffer_offset)>
      read;
};

}  // namespace alloy::stream
