// Opens libcuda at run time and resolves the driver calls by name.
#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <mutex>

namespace alloy::cuda {
namespace {

Driver loaded;

#define ALLOY_CUDA_NAME(function) ALLOY_CUDA_NAME_EXPANDED(function)
#define ALLOY_CUDA_NAME_EXPANDED(function) #function

std::string open_and_resolve(const char* library) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return std::string("no NVIDIA driver: cannot load ") + library + " (" +
           (why ? why : "unknown error") + "); install the NVIDIA driver";
  }
  std::string missing;
#define ALLOY_CUDA_RESOLVE(function)                                                  \
  loaded.function = reinterpret_cast<decltype(loaded.function)>(                       \
      dlsym(handle, ALLOY_CUDA_NAME(function)));                                       \
  if (loaded.function == nullptr) missing += std::string(missing.empty() ? "" : ", ") + \
                                             ALLOY_CUDA_NAME(function);
  ALLOY_CUDA_DRIVER_CALLS(ALLOY_CUDA_RESOLVE)
#undef ALLOY_CUDA_RESOLVE
  if (!missing.empty()) {
    return std::string(library) + " lacks " + missing + "; the NVIDIA driver is too old for this "
                                  "CUDA toolkit, update it";
  }
  loaded.cuFuncGetParamInfo = reinterpret_cast<decltype(loaded.cuFuncGetParamInfo)>(
      dlsym(handle, ALLOY_CUDA_NAME(cuFuncGetParamInfo)));
  const CUresult status = loaded.cuInit(0);
  if (status != CUDA_SUCCESS) {
    const char* name = nullptr;
    loaded.cuGetErrorName(status, &name);
    return std::string("cuInit failed with ") + (name ? name : "an unknown error") + " (" +
           std::to_string(status) + ")" +
           (status == CUDA_ERROR_NO_DEVICE ? ": no NVIDIA GPU is visible to this process" : "");
  }
  return {};
}

}  // namespace

const Driver& driver() { return loaded; }

std::string load_driver(const char* library) {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [&] { problem = open_and_resolve(library); });
  return problem;
}

}  // namespace alloy::cuda
