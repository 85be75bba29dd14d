#include "profiler_ranges.hpp"

#include <dlfcn.h>

#include <cstdlib>

#if ALLOY_HAVE_NVTX
// Header-only NVTX 3: its calls do nothing until a tool injects itself.
#include <nvtx3/nvToolsExt.h>
#endif

namespace alloy::detail {
namespace {

/// roctx's two calls, from libroctx64 when the process can open it.
struct Roctx {
  int (*push)(const char*) = nullptr;
  int (*pop)() = nullptr;
};

Roctx open_roctx() {
  for (const char* name : {"libroctx64.so", "libroctx64.so.4", "libroctx64.so.1"}) {
    void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) continue;
    Roctx roctx;
    roctx.push = reinterpret_cast<int (*)(const char*)>(dlsym(library, "roctxRangePushA"));
    roctx.pop = reinterpret_cast<int (*)()>(dlsym(library, "roctxRangePop"));
    if (roctx.push != nullptr && roctx.pop != nullptr) return roctx;  // kept open for the process
    dlclose(library);
  }
  return {};
}

struct Profilers {
  bool nvtx = false;
  Roctx roctx;
};

const Profilers& profilers() {
  static const Profilers found = [] {
    Profilers profilers;
#if ALLOY_HAVE_NVTX
    const char* injection = std::getenv("NVTX_INJECTION64_PATH");
    profilers.nvtx = injection != nullptr && *injection != '\0';
#endif
    profilers.roctx = open_roctx();
    return profilers;
  }();
  return found;
}

}  // namespace

bool profiler_listening() {
  const Profilers& found = profilers();
  return found.nvtx || found.roctx.push != nullptr;
}

void ProfilerRange::push(const std::string& name) {
  const Profilers& found = profilers();
#if ALLOY_HAVE_NVTX
  if (found.nvtx) nvtxRangePushA(name.c_str());
#endif
  if (found.roctx.push != nullptr) found.roctx.push(name.c_str());
}

void ProfilerRange::pop() {
  const Profilers& found = profilers();
#if ALLOY_HAVE_NVTX
  if (found.nvtx) nvtxRangePop();
#endif
  if (found.roctx.pop != nullptr) found.roctx.pop();
}

}  // namespace alloy::detail
