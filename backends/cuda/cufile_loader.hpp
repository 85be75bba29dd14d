// NVIDIA's cuFile (GPUDirect Storage) as the CUDA backend's DirectStorageApi,
// opened at run time: a build with cufile.h runs where libcufile is absent
// and says so, as the plugin does for libcuda.
#pragma once

#include <string>

#include "direct_storage_api.hpp"

namespace alloy::cuda {

/// The table the CUDA backend reads files with. Its unavailable() opens
/// libcufile.so.0 on the first call (from the library path, then where the
/// build found it) and says why it cannot be used, if so: a build without
/// cufile.h, a library that does not load or lacks calls, a machine where
/// opening its driver would not return.
const stream::DirectStorageApi& cufile_api();

/// For tests, a fresh attempt each call (cufile_api() loads once): "" when
/// `library` loads and has every call the table makes, else what is wrong.
std::string check_cufile_library(const char* library);

/// For tests: loads `library`, then cuFileDriverOpen, and cuFileDriverClose
/// where that opened it: "" or how it refused, in the table's words. Call
/// it in a child process: on a machine without /proc/modules, libcufile
/// 1.20's cuFileDriverOpen never returns (this function then says so
/// instead of calling it).
std::string try_cufile_driver(const char* library);

/// Where the build found libcufile.so.0; empty when it found none.
const char* built_cufile_library();

}  // namespace alloy::cuda
