// cuFile's status codes in words, and what to do about each, for the CUDA
// backend's loader and the emulated device's model alike (neither needs
// cufile.h for them).
#pragma once

#include <string>

#include "direct_storage_api.hpp"

namespace alloy::stream {

/// The CUfileOpError values alloy acts on (cufile.h; the loader checks them
/// against it where it is built with it).
enum CufileCode : int {
  cufile_success = 0,
  cufile_driver_not_initialized = 5001,
  cufile_platform_not_supported = 5007,
  cufile_io_not_supported = 5008,
  cufile_cuda_driver_error = 5011,
  cufile_cuda_pointer_range_error = 5014,
  cufile_invalid_file_type = 5018,
  cufile_invalid_file_open_flag = 5019,
  cufile_invalid_value = 5022,
  cufile_handle_not_registered = 5027,
};

/// "CU_FILE_IO_NOT_SUPPORTED"; for CU_FILE_CUDA_DRIVER_ERROR with the CUDA
/// error, "CU_FILE_CUDA_DRIVER_ERROR (cu_err CUDA_ERROR_NO_DEVICE, 100)",
/// named by `cuda_error_name` where it knows it (it returns "" otherwise).
std::string cufile_status_name(StorageStatus status, std::string (*cuda_error_name)(int) = nullptr);

/// cufile.h's description of the code, then what to do about it.
std::string cufile_hint(StorageStatus status);

}  // namespace alloy::stream
