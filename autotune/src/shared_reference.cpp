// Loading a manifest's host reference from a shared library with dlopen.
#include "shared_reference.hpp"

#include <dlfcn.h>

#include <memory>

#include "alloy/autotune/host_reference_abi.h"
#include "alloy/error.hpp"

namespace alloy::autotune::detail {
namespace {

alloy_host_buffer as_c_buffer(const HostArray& array, const std::string& type) {
  // The function takes the inputs read-only; the C struct has one pointer type for both.
  return {type.c_str(), array.size(), const_cast<std::byte*>(array.data())};
}

}  // namespace

HostReference load_shared_reference(const std::filesystem::path& library, const std::string& function) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw InvalidArgument("host reference library " + library.string() + " cannot be loaded (" +
                          (why != nullptr ? why : "unknown reason") + "); build it as a shared library");
  }
  // Closed when the last copy of the reference is gone.
  const std::shared_ptr<void> owner(handle, [](void* opened) { dlclose(opened); });
  auto* entry = reinterpret_cast<alloy_host_reference_function>(dlsym(handle, function.c_str()));
  if (entry == nullptr) {
    throw InvalidArgument("host reference library " + library.string() + " has no function '" + function +
                          "'; define it with ALLOY_HOST_REFERENCE_EXPORT (host_reference_abi.h)");
  }
  const std::string label = function + " in " + library.string();
  return [owner, entry, label](const Extent& problem, const std::vector<HostArray>& buffers,
                               std::vector<HostArray>& expected) {
    std::vector<std::string> types;  // kept alive for the call
    for (const HostArray& array : buffers) types.emplace_back(to_string(array.type()));
    for (const HostArray& array : expected) types.emplace_back(to_string(array.type()));
    std::vector<alloy_host_buffer> inputs;
    std::vector<alloy_host_buffer> outputs;
    for (std::size_t i = 0; i < buffers.size(); ++i) inputs.push_back(as_c_buffer(buffers[i], types[i]));
    for (std::size_t i = 0; i < expected.size(); ++i) {
      outputs.push_back({types[buffers.size() + i].c_str(), expected[i].size(), expected[i].data()});
    }
    const std::size_t sizes[3] = {problem[0], problem[1], problem[2]};
    char message[512] = {};
    const int status = entry(sizes, inputs.data(), inputs.size(), outputs.data(), outputs.size(), message,
                             sizeof message);
    if (status != 0) {
      message[sizeof message - 1] = '\0';
      throw Error("host reference " + label + " failed (returned " + std::to_string(status) + "): " +
                  (message[0] != '\0' ? message : "no message") + "; fix the reference or the manifest");
    }
  };
}

}  // namespace alloy::autotune::detail
