// The plugin loader reports every backend it cannot use, with the reason, and never crashes.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

/// Sets ALLOY_PLUGIN_PATH for one scope.
class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const std::string& value) { setenv("ALLOY_PLUGIN_PATH", value.c_str(), 1); }
  ~ScopedPluginPath() { unsetenv("ALLOY_PLUGIN_PATH"); }
};

const BackendStatus* find_backend(const Runtime& runtime, const std::string& library_part) {
  for (const BackendStatus& backend : runtime.backends()) {
    if (backend.library.string().find(library_part) != std::string::npos) return &backend;
  }
  return nullptr;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The broken plugin must not cost the working backends their devices.
void check_still_usable(Runtime& runtime) {
  REQUIRE_FALSE(runtime.devices().empty());
  check_saxpy_works(*runtime.devices().front(), runtime);
}

}  // namespace

TEST_CASE("Plugins.Loader.opencl_found_beside_runtime") {
  const Runtime runtime;
  const BackendStatus* opencl = nullptr;
  for (const BackendStatus& backend : runtime.backends()) {
    if (backend.name == "opencl") opencl = &backend;
  }
  REQUIRE(opencl != nullptr);
  CHECK(opencl->library.filename() == "liballoy_backend_opencl.so");
  CHECK(opencl->reason.empty());
}

TEST_CASE("Plugins.Loader.absent_backends_have_reasons") {
  const Runtime runtime;
  for (const BackendStatus& backend : runtime.backends()) {
    CAPTURE(backend.name);
    if (backend.devices.empty()) CHECK_FALSE(backend.reason.empty());
  }
}

TEST_CASE("Plugins.Loader.text_file_is_not_a_plugin") {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("alloy-not-a-plugin-" + std::to_string(getpid()) + ".so");
  std::ofstream(file) << "this is text, not a shared library\n";
  {
    const ScopedPluginPath path(file.string());
    Runtime runtime;
    const BackendStatus* entry = find_backend(runtime, file.filename().string());
    REQUIRE(entry != nullptr);
    CHECK(entry->devices.empty());
    CHECK(contains(entry->reason, "cannot load " + file.string()));
    check_still_usable(runtime);
  }
  std::filesystem::remove(file);
}

TEST_CASE("Plugins.Loader.library_without_entry_points") {
  const ScopedPluginPath path(NOT_A_PLUGIN);
  Runtime runtime;
  const BackendStatus* entry = find_backend(runtime, "not_a_plugin");
  REQUIRE(entry != nullptr);
  CHECK(contains(entry->reason, "is not an alloy plugin"));
  check_still_usable(runtime);
}

TEST_CASE("Plugins.Loader.wrong_abi_version_refused") {
  const ScopedPluginPath path(WRONG_ABI_PLUGIN);
  Runtime runtime;
  const BackendStatus* entry = find_backend(runtime, "wrong_abi_plugin");
  REQUIRE(entry != nullptr);
  CHECK(contains(entry->reason, "was built for plugin ABI 999"));
  check_still_usable(runtime);
}

TEST_CASE("Plugins.Loader.missing_path_entry") {
  const ScopedPluginPath path("/nonexistent/liballoy_backend_imaginary.so");
  Runtime runtime;
  const BackendStatus* entry = find_backend(runtime, "imaginary");
  REQUIRE(entry != nullptr);
  CHECK(entry->name == "imaginary");
  CHECK(contains(entry->reason, "cannot load"));
  check_still_usable(runtime);
}

}  // namespace alloy::test
