// Opens libcuda at run time and resolves the driver calls by name.
#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string_view>

namespace alloy::cuda {
namespace {

Driver loaded;

#define ALLOY_CUDA_NAME(function) ALLOY_CUDA_NAME_EXPANDED(function)
#define ALLOY_CUDA_NAME_EXPANDED(function) #function

/// A symbol the toolkit's headers name in a version newer drivers added
/// (CUDA 13's cuEventElapsedTime -> cuEventElapsedTime_v2, from drivers for
/// 12.8), and the older symbol with the same signature that older drivers
/// export: used where the newer one is missing.
const char* older_symbol(std::string_view symbol) {
  if (symbol == "cuEventElapsedTime_v2") return "cuEventElapsedTime";
  return nullptr;
}

void* resolve(void* handle, const char* symbol) {
  if (void* found = dlsym(handle, symbol)) return found;
  const char* older = older_symbol(symbol);
  return older != nullptr ? dlsym(handle, older) : nullptr;
}

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
      resolve(handle, ALLOY_CUDA_NAME(function)));                                     \
  if (loaded.function == nullptr) missing += std::string(missing.empty() ? "" : ", ") + \
                                             ALLOY_CUDA_NAME(function);
  ALLOY_CUDA_DRIVER_CALLS(ALLOY_CUDA_RESOLVE)
#undef ALLOY_CUDA_RESOLVE
  int version = 0;
  if (loaded.cuDriverGetVersion != nullptr) loaded.cuDriverGetVersion(&version);
  if (!missing.empty()) {
    return std::string(library) + " (" + cuda_version_text(version) + ") lacks " + missing +
           "; alloy was built against the headers of " + cuda_version_text(CUDA_VERSION) +
           ": update the NVIDIA driver, or build alloy with a toolkit no newer than the driver";
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

std::string error_name(CUresult status) {
  const char* name = nullptr;
  if (loaded.cuGetErrorName == nullptr || loaded.cuGetErrorName(status, &name) != CUDA_SUCCESS || name == nullptr) {
    return "";
  }
  return name;
}

std::string cuda_version_text(int version) {
  if (version <= 0) return "a driver of unknown CUDA version";
  return "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string driver_floor_problem(int driver_version, int compiler_major, int compiler_minor) {
  // Code from a newer major release of the compiler does not load on an
  // older driver: PTX of a newer ISA cannot be JIT-compiled, cubins of a
  // newer major release are refused (NVIDIA's compatibility rules allow
  // newer minor releases within one major release only).
  if (driver_version <= 0 || driver_version / 1000 >= compiler_major) return {};
  return "the NVIDIA driver supports " + cuda_version_text(driver_version) + ", older than NVRTC " +
         std::to_string(compiler_major) + "." + std::to_string(compiler_minor) +
         ", which compiles alloy's kernels: no kernel it builds would load. Install a driver for CUDA " +
         std::to_string(compiler_major) + ".0 or later, or build alloy with the CUDA toolkit " +
         std::to_string(driver_version / 1000) + ".x";
}

std::string load_driver(const char* library) {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [&] { problem = open_and_resolve(library); });
  return problem;
}

}  // namespace alloy::cuda
