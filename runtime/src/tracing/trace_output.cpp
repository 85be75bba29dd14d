// Opens alloy's trace library for what a traced executor writes as it goes.
#include "trace_output.hpp"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "alloy/error.hpp"
#include "devices/plugin_loader.hpp"

namespace alloy::detail {
namespace {

/// alloy_trace_write_output in trace/src/trace_output_entry.cpp.
using WriteOutput = void (*)(const Trace& trace, const char* file, bool report, std::string* error);

/// The library's entry point, opened once; throws what went wrong each time.
WriteOutput entry_point() {
  static std::once_flag opened;
  static WriteOutput entry = nullptr;
  static std::string problem;
  std::call_once(opened, [] {
    // Beside the runtime (the build tree, an install), else by name, where
    // the program's run path or the loader's cache finds it.
    const std::filesystem::path beside = runtime_library_dir() / ALLOY_TRACE_LIBRARY;
    void* library = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) library = dlopen(ALLOY_TRACE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      problem = std::string("alloy's trace library ") + ALLOY_TRACE_LIBRARY + " could not be opened (" + dlerror() +
                "); install it beside liballoy_runtime, or link the program with alloy::trace";
      return;
    }
    entry = reinterpret_cast<WriteOutput>(dlsym(library, "alloy_trace_write_output"));
    if (entry == nullptr) problem = std::string(ALLOY_TRACE_LIBRARY) + " has no alloy_trace_write_output";
  });
  if (entry == nullptr) throw Error(problem);
  return entry;
}

}  // namespace

void write_trace_output(const Trace& trace, const std::filesystem::path& file, bool report) {
  std::string error;
  entry_point()(trace, file.c_str(), report, &error);
  if (!error.empty()) throw Error(error);
}

}  // namespace alloy::detail
