// Plugin discovery and loading with dlopen, and the ABI check.
#include "plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "alloy/log.hpp"
#include "alloy/plugin.hpp"

namespace alloy::detail {
namespace {

namespace fs = std::filesystem;

constexpr const char* known_backends[] = {"opencl", "cuda", "hip"};
constexpr std::string_view plugin_prefix = "liballoy_backend_";
constexpr std::string_view plugin_suffix = ".so";

/// "0x1a2b3c4d"
std::string abi_text(std::uint32_t abi) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", static_cast<unsigned>(abi));
  return text;
}

std::string library_name(const std::string& backend) {
  return std::string(plugin_prefix) + backend + std::string(plugin_suffix);
}

/// "cuda" for ".../liballoy_backend_cuda.so"; the file name for anything else.
std::string backend_name_of(const fs::path& library) {
  const std::string file = library.filename().string();
  if (file.starts_with(plugin_prefix) && file.ends_with(plugin_suffix)) {
    return file.substr(plugin_prefix.size(),
                       file.size() - plugin_prefix.size() - plugin_suffix.size());
  }
  return file;
}


/// ALLOY_BACKENDS=opencl,emulated: the only backends to load. Unset or
/// empty: all of them.
std::optional<std::vector<std::string>> chosen_backends() {
  const char* value = std::getenv("ALLOY_BACKENDS");
  if (value == nullptr || *value == '\0') return std::nullopt;
  std::vector<std::string> names;
  std::stringstream list(value);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

std::vector<fs::path> environment_entries() {
  std::vector<fs::path> entries;
  const char* value = std::getenv("ALLOY_PLUGIN_PATH");
  if (value == nullptr) return entries;
  std::stringstream list(value);
  for (std::string entry; std::getline(list, entry, ':');) {
    if (!entry.empty()) entries.emplace_back(entry);
  }
  return entries;
}

/// Folders to search in order, and plugin files named directly.
struct SearchPath {
  std::vector<fs::path> dirs;
  std::vector<fs::path> files;
};

SearchPath search_path() {
  SearchPath path;
  auto add_dir = [&](const fs::path& dir) {
    if (!dir.empty() && std::find(path.dirs.begin(), path.dirs.end(), dir) == path.dirs.end()) {
      path.dirs.push_back(dir);
    }
  };
  const fs::path runtime_dir = runtime_library_dir();
  add_dir(runtime_dir);
  // An installed tree keeps plugins in <libdir>/alloy; looking there relative
  // to the runtime keeps a moved install working.
  if (!runtime_dir.empty()) add_dir(runtime_dir / "alloy");
  add_dir(ALLOY_INSTALL_PLUGIN_DIR);
  for (const fs::path& entry : environment_entries()) {
    std::error_code error;
    if (fs::is_directory(entry, error)) {
      add_dir(entry);
    } else {
      path.files.push_back(entry);  // a missing file is reported when loading it
    }
  }
  return path;
}

LoadedBackend open_plugin(const std::string& name, const fs::path& library) {
  LoadedBackend backend{name, library, nullptr, {}};
  // Plugins stay loaded until exit: vendor drivers register exit handlers
  // that would run after their code was unmapped by a dlclose.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    backend.reason = "cannot load " + library.string() + ": " + (why ? why : "unknown error");
    return backend;
  }
  auto abi_version =
      reinterpret_cast<alloy_plugin_abi_version_fn>(dlsym(handle, "alloy_plugin_abi_version"));
  auto create = reinterpret_cast<alloy_plugin_create_fn>(dlsym(handle, "alloy_plugin_create"));
  if (abi_version == nullptr || create == nullptr) {
    backend.reason = library.string() +
                     " is not an alloy plugin (it exports no alloy_plugin_abi_version / "
                     "alloy_plugin_create); remove it from ALLOY_PLUGIN_PATH";
    return backend;
  }
  if (abi_version() != ALLOY_PLUGIN_ABI_VERSION) {
    // The numbers are hashes of the interface headers: different numbers
    // mean the plugin was compiled against other headers.
    backend.reason = library.string() + " was built for plugin ABI " + abi_text(abi_version()) +
                     " but this runtime uses ABI " + abi_text(ALLOY_PLUGIN_ABI_VERSION) +
                     ": it was compiled against another version of the backend interface "
                     "(alloy/backend/); rebuild the plugin against this alloy";
    return backend;
  }
  backend.platform.reset(create());
  if (!backend.platform) {
    backend.reason = library.string() + " created no platform";
  } else {
    backend.reason = backend.platform->unavailable_reason();
  }
  return backend;
}

std::string joined(const std::vector<fs::path>& dirs) {
  std::string text;
  for (const fs::path& dir : dirs) text += (text.empty() ? "" : ", ") + dir.string();
  return text;
}

}  // namespace

fs::path runtime_library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_backends), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  std::error_code error;
  const fs::path library = fs::canonical(info.dli_fname, error);
  return error ? fs::path() : library.parent_path();
}

std::vector<LoadedBackend> load_backends() {
  const SearchPath path = search_path();
  std::vector<LoadedBackend> backends;
  auto loaded = [&](const std::string& name) {
    return std::any_of(backends.begin(), backends.end(),
                       [&](const LoadedBackend& b) { return b.name == name; });
  };
  // A backend left out is listed with the reason, never opened: opening one
  // starts its driver, which can cost more than the whole program (PoCL's
  // LLVM, a GPU driver's initialisation).
  const std::optional<std::vector<std::string>> chosen = chosen_backends();
  auto load = [&](const std::string& name, const fs::path& library) {
    if (chosen && std::find(chosen->begin(), chosen->end(), name) == chosen->end()) {
      return LoadedBackend{name, library, nullptr,
                           "not loaded: ALLOY_BACKENDS=" + std::string(std::getenv("ALLOY_BACKENDS")) +
                               " leaves it out"};
    }
    return open_plugin(name, library);
  };

  for (const char* name : known_backends) {
    const auto dir = std::find_if(path.dirs.begin(), path.dirs.end(), [&](const fs::path& d) {
      std::error_code error;  // an unreadable folder simply has no plugin
      return fs::exists(d / library_name(name), error);
    });
    const bool named_directly = std::any_of(path.files.begin(), path.files.end(),
                                            [&](const fs::path& f) { return backend_name_of(f) == name; });
    if (dir != path.dirs.end()) {
      backends.push_back(load(name, *dir / library_name(name)));
    } else if (!named_directly) {
      backends.push_back({name, {}, nullptr,
                          library_name(name) + " not found in " + joined(path.dirs) +
                              " (not built, or not installed)"});
    }
  }
  // Folders of ALLOY_PLUGIN_PATH may hold backends alloy does not know.
  for (const fs::path& dir : path.dirs) {
    std::error_code error;
    for (fs::directory_iterator entry(dir, error), end; !error && entry != end;
         entry.increment(error)) {
      const std::string name = backend_name_of(entry->path());
      if (name != entry->path().filename().string() && !loaded(name)) {
        backends.push_back(load(name, entry->path()));
      }
    }
  }
  for (const fs::path& file : path.files) {
    const std::string name = backend_name_of(file);
    const auto same = std::find_if(backends.begin(), backends.end(),
                                   [&](const LoadedBackend& b) { return b.name == name; });
    if (same == backends.end()) {
      backends.push_back(load(name, file));
    } else {
      log_warning("ALLOY_PLUGIN_PATH names " + file.string() + ", but backend " + name +
                  " was already loaded from " + same->library.string() + "; ignoring it");
    }
  }
  return backends;
}

}  // namespace alloy::detail
