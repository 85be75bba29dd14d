// NVRTC: portable kernel source to a cubin (or PTX) for one architecture.
#include "cuda_compiler.hpp"

#include "compiler_arguments.hpp"

#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <vector>

namespace alloy::cuda {
namespace {

/// 90 for "sm_90" (also "sm_90a"); 0 when the text is no sm_ architecture.
int architecture_number(const std::string& architecture) {
  if (!architecture.starts_with("sm_")) return 0;
  return std::atoi(architecture.c_str() + 3);
}

/// NVRTC opens libnvrtc-builtins by name at its first compile, which fails
/// where the toolkit's folder is not in the loader's search path (a toolkit
/// outside ld.so.conf). Loading it first from libnvrtc's own folder makes
/// that lookup find the already-loaded library.
void load_builtins_beside_nvrtc() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) == 0 || info.dli_fname == nullptr) {
      return;
    }
    int major = 0;
    int minor = 0;
    nvrtcVersion(&major, &minor);
    const std::filesystem::path folder = std::filesystem::path(info.dli_fname).parent_path();
    std::string name = "libnvrtc-builtins.so.";
    name += std::to_string(major);
    name += '.';
    name += std::to_string(minor);
    // Failure is left to NVRTC, whose log then names what it could not open.
    dlopen((folder / name).c_str(), RTLD_NOW | RTLD_GLOBAL);
  });
}

/// The target to compile for, or "" when NVRTC supports nothing this old.
std::string choose_target(const std::string& architecture) {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> supported(static_cast<std::size_t>(count));
  if (nvrtcGetSupportedArchs(supported.data()) != NVRTC_SUCCESS) return {};
  const int wanted = architecture_number(architecture);
  if (std::find(supported.begin(), supported.end(), wanted) != supported.end()) {
    return "sm_" + std::to_string(wanted);
  }
  if (wanted < *std::min_element(supported.begin(), supported.end())) return {};
  int fallback = supported.empty() ? 0 : supported.front();
  for (int known : supported) {
    if (known <= wanted) fallback = std::max(fallback, known);
  }
  return "compute_" + std::to_string(fallback);
}

}  // namespace

stream::CompileResult compile(const std::string& source, const std::string& name,
                              const std::string& options, const std::string& architecture) {
  load_builtins_beside_nvrtc();
  stream::CompileResult result;
  result.target = choose_target(architecture);
  if (result.target.empty()) {
    result.target = architecture;
    result.log = compiler_version() + " cannot compile for " + architecture +
                 ", older than every architecture it supports; use an older CUDA toolkit";
    return result;
  }
  nvrtcProgram program = nullptr;
  nvrtcResult status = nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    result.log = std::string("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(status);
    return result;
  }
  // A helper function written without INLINE is a host function to NVRTC,
  // and a kernel calling it fails to compile; OpenCL C has no such split.
  const stream::CompilerArguments arguments(options + " -default-device", "--gpu-architecture=" + result.target);

  status = nvrtcCompileProgram(program, arguments.count(), arguments.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  result.log.resize(log_size);
  nvrtcGetProgramLog(program, result.log.data());
  stream::trim_log(result.log);

  if (status == NVRTC_SUCCESS) {
    const bool cubin = result.target.starts_with("sm_");
    std::size_t size = 0;
    cubin ? nvrtcGetCUBINSize(program, &size) : nvrtcGetPTXSize(program, &size);
    result.binary.resize(size);  // PTX's size counts its terminating NUL, which loading needs
    auto* bytes = reinterpret_cast<char*>(result.binary.data());
    status = cubin ? nvrtcGetCUBIN(program, bytes) : nvrtcGetPTX(program, bytes);
    result.ok = status == NVRTC_SUCCESS;
  }
  if (!result.ok && result.log.empty()) result.log = nvrtcGetErrorString(status);
  nvrtcDestroyProgram(&program);
  return result;
}

CompilerRelease compiler_release() {
  CompilerRelease release;
  nvrtcVersion(&release.major, &release.minor);
  return release;
}

std::string compiler_version() {
  const CompilerRelease release = compiler_release();
  return "NVRTC " + std::to_string(release.major) + "." + std::to_string(release.minor);
}

}  // namespace alloy::cuda
