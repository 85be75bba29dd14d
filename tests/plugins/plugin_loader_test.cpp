// The plugin loader reports every backend it cannot use, with the reason, and never crashes.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "alloy/plugin.hpp"
#include "support/build_paths.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

namespace fs = std::filesystem;

/// Sets ALLOY_PLUGIN_PATH for one scope, then restores what the caller had.
class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const std::string& value) {
    if (const char* previous = std::getenv("ALLOY_PLUGIN_PATH")) previous_ = previous;
    setenv("ALLOY_PLUGIN_PATH", value.c_str(), 1);
  }
  ~ScopedPluginPath() {
    if (previous_) {
      setenv("ALLOY_PLUGIN_PATH", previous_->c_str(), 1);
    } else {
      unsetenv("ALLOY_PLUGIN_PATH");
    }
  }

 private:
  std::optional<std::string> previous_;
};

const BackendStatus* find_named(const Runtime& runtime, const std::string& name) {
  for (const BackendStatus& backend : runtime.backends()) {
    if (backend.name == name) return &backend;
  }
  return nullptr;
}

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
  const ScopedPluginPath no_extra_plugins("");
  const Runtime undisturbed;
  for (const BackendStatus& expected : undisturbed.backends()) {
    const BackendStatus* found = find_named(runtime, expected.name);
    REQUIRE(found != nullptr);
    CHECK(found->devices.size() == expected.devices.size());
  }
  if (!runtime.devices().empty()) check_saxpy_works(*runtime.devices().front(), runtime);
}

}  // namespace

TEST_CASE("Plugins.Loader.opencl_found_beside_runtime") {
  const Runtime runtime;
  const BackendStatus* opencl = find_named(runtime, "opencl");
  REQUIRE(opencl != nullptr);
  CHECK(opencl->library == fs::canonical(build_paths::runtime_library_dir) / "liballoy_backend_opencl.so");
  // Loaded: any reason left is the driver's (no OpenCL platform), not the loader's.
  CHECK(opencl->reason.find("cannot load") == std::string::npos);
}

TEST_CASE("Plugins.Loader.path_folders_come_after_runtime_folder") {
  const fs::path dir = fs::temp_directory_path() / ("alloy-plugins-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A second copy of the OpenCL plugin: shadowed by the one beside the
  // runtime. A copy under another backend name: found by scanning the folder.
  fs::copy_file(build_paths::opencl_plugin, dir / "liballoy_backend_opencl.so");
  fs::copy_file(build_paths::opencl_plugin, dir / "liballoy_backend_extra.so");
  {
    const ScopedPluginPath path(dir.string());
    Runtime runtime;
    const BackendStatus* opencl = find_named(runtime, "opencl");
    REQUIRE(opencl != nullptr);
    CHECK(opencl->library.parent_path() == fs::canonical(build_paths::runtime_library_dir));
    const BackendStatus* extra = find_named(runtime, "extra");
    REQUIRE(extra != nullptr);
    CHECK(extra->library == dir / "liballoy_backend_extra.so");
    CHECK(extra->devices.size() == opencl->devices.size());  // the same plugin, loaded twice
  }
  fs::remove_all(dir);
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
  const ScopedPluginPath path(build_paths::not_a_plugin);
  Runtime runtime;
  const BackendStatus* entry = find_backend(runtime, "not_a_plugin");
  REQUIRE(entry != nullptr);
  CHECK(contains(entry->reason, "is not an alloy plugin"));
  check_still_usable(runtime);
}

TEST_CASE("Plugins.Loader.plugin_built_against_another_interface_refused") {
  const ScopedPluginPath path(build_paths::other_interface_plugin);
  Runtime runtime;
  const BackendStatus* entry = find_backend(runtime, "other_interface_plugin");
  REQUIRE(entry != nullptr);
  CHECK(entry->devices.empty());
  INFO(entry->reason);
  char ours[16];
  std::snprintf(ours, sizeof ours, "0x%08x", static_cast<unsigned>(ALLOY_PLUGIN_ABI_VERSION));
  CHECK(contains(entry->reason, std::string("but this runtime uses ABI ") + ours));
  CHECK(contains(entry->reason, "was built for plugin ABI 0x"));
  CHECK(contains(entry->reason, "another version of the backend interface"));
  CHECK_FALSE(contains(entry->reason, std::string("was built for plugin ABI ") + ours));
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
