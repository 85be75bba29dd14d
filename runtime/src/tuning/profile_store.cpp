// Finding the tuned configuration for a launch: profile files on disk, the
// device → architecture → vendor → defaults chain, nearest problem size.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "alloy/dialect.hpp"
#include "alloy/log.hpp"
#include "alloy/profile.hpp"

namespace alloy {
namespace {

constexpr std::uintmax_t max_file_bytes = 16u << 20;

std::optional<std::string> read_small_file(const std::filesystem::path& file, std::string& why) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (error) {
    why = error.message();
    return std::nullopt;
  }
  if (size > max_file_bytes) {
    why = "larger than 16 MiB, which no profile is";
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    why = "cannot be read";
    return std::nullopt;
  }
  return std::move(text).str();
}

// Sum over dimensions of |log(tuned / wanted)|: 2048 is as far from 1024 as
// 512 is, and a size off in two dimensions is further than one off in one.
double log_distance(const Extent& tuned, const Extent& wanted) {
  double distance = 0;
  for (unsigned d = 0; d < 3; ++d) {
    distance += std::fabs(std::log(static_cast<double>(tuned[d])) -
                          std::log(static_cast<double>(wanted[d])));
  }
  return distance;
}

// The entry's configuration in the kernel's parameter order; nothing when it
// names other parameters than the kernel has.
std::optional<Configuration> configuration_of(const ProfileEntry& entry, const TunableKernel& kernel) {
  if (entry.configuration.size() != kernel.parameters.size()) return std::nullopt;
  Configuration configuration;
  for (const TuningParameter& parameter : kernel.parameters) {
    const auto found = entry.configuration.find(parameter.name);
    if (found == entry.configuration.end()) return std::nullopt;
    configuration.push_back(found->second);
  }
  return configuration;
}

// Why an entry could never be used, whatever the device and problem: it
// names other parameters than the kernel has, a value outside a parameter's
// list, or breaks the space's rules for its own problem. Nothing for a
// sound entry (which may still not fit another problem or device: that is
// the lookup's business, not a fault of the file).
std::optional<std::string> fault_of(const ProfileEntry& entry, const TunableKernel& kernel) {
  std::string names;
  for (const auto& [name, value] : entry.configuration) names += (names.empty() ? "" : ", ") + name;
  std::string wanted;
  for (const TuningParameter& parameter : kernel.parameters) wanted += (wanted.empty() ? "" : ", ") + parameter.name;
  const std::optional<Configuration> configuration = configuration_of(entry, kernel);
  if (!configuration) return "it sets " + (names.empty() ? "no parameter" : names) + "; the kernel has " + wanted;
  if (auto why = check_configuration(kernel, *configuration, entry.problem, DeviceLimits{})) {
    return "its configuration " + *why;
  }
  return std::nullopt;
}

}  // namespace

ProfileStore::ProfileStore(std::filesystem::path location) : location_(std::move(location)) {}

void ProfileStore::reload() {
  std::lock_guard lock(mutex_);
  loaded_ = false;
  profiles_.clear();
}

std::vector<StoredProfile> ProfileStore::profiles() const {
  std::lock_guard lock(mutex_);
  load_locked();
  return profiles_;
}

void ProfileStore::load_locked() const {
  if (loaded_) return;
  loaded_ = true;
  if (location_.empty()) return;
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (std::filesystem::is_directory(location_, error)) {
    for (const auto& item : std::filesystem::directory_iterator(location_, error)) {
      if (item.path().extension() == ".json") files.push_back(item.path());
    }
    std::sort(files.begin(), files.end());  // the same order on every run
  } else if (std::filesystem::exists(location_, error)) {
    files.push_back(location_);
  }
  for (const std::filesystem::path& file : files) {
    std::string why;
    const std::optional<std::string> text = read_small_file(file, why);
    ProfileParse parsed;
    if (text) parsed = parse_profile(*text);
    if (!text || !parsed.profile) {
      log_warning("profile " + file.string() + " ignored: " + (text ? parsed.error : why) +
                  "; kernels use other profiles or their defaults. Rerun `autotune` to rewrite it.");
      continue;
    }
    profiles_.push_back({std::move(*parsed.profile), file});
  }
}

TunedChoice ProfileStore::lookup(const DeviceInfo& device, const TunableKernel& kernel,
                                 const Extent& problem) const {
  std::lock_guard lock(mutex_);
  load_locked();
  const std::string hash = kernel.source_hash();
  const DeviceLimits limits = DeviceLimits::of(device);
  for (ProfileMatch level :
       {ProfileMatch::device, ProfileMatch::other_driver, ProfileMatch::architecture, ProfileMatch::vendor}) {
    std::optional<TunedChoice> best;
    const StoredProfile* answered = nullptr;
    double best_distance = 0;
    for (const StoredProfile& loaded : profiles_) {
      if (relation(loaded.profile, device) != level) continue;
      for (const ProfileEntry& entry : loaded.profile.entries) {
        if (entry.kernel != kernel.name || entry.problem.dimensions != problem.dimensions) continue;
        if (entry.source_hash != hash) {
          const std::string key = loaded.file.string() + '\n' + kernel.name + '\n' + entry.source_hash;
          if (warned_.insert(key).second) {
            log_warning("profile " + loaded.file.string() + ": the entries for " + kernel.name +
                        " were tuned for another version of its source and are ignored; rerun "
                        "`autotune` for it");
          }
          continue;
        }
        if (const std::optional<std::string> fault = fault_of(entry, kernel)) {
          const std::string key = loaded.file.string() + '\n' + kernel.name + '\n' +
                                  entry.problem.to_string() + '\n' + *fault;
          if (warned_.insert(key).second) {
            log_warning("profile " + loaded.file.string() + ": the entry for " + kernel.name + " " +
                        entry.problem.to_string() + " is ignored: " + *fault +
                        "; rerun `autotune` for it");
          }
          continue;
        }
        std::optional<Configuration> configuration = configuration_of(entry, kernel);
        if (check_configuration(kernel, *configuration, problem, limits)) continue;
        const double distance = log_distance(entry.problem, problem);
        if (!best || distance < best_distance) {
          const double scale = static_cast<double>(problem.count()) / static_cast<double>(entry.problem.count());
          best = TunedChoice{std::move(*configuration), level,       entry.problem,   loaded.file,
                             entry.seconds * scale,       entry.staged_on_host, entry.provisional};
          best_distance = distance;
          answered = &loaded;
        }
      }
    }
    if (best && level == ProfileMatch::other_driver &&
        warned_.insert(answered->file.string() + '\n' + device.fingerprint()).second) {
      log_warning("profile " + answered->file.string() + " was " + stale_reason(answered->profile, device) +
                  ": its entries are a starting point, not this driver's answer; rerun `autotune` for it");
    }
    if (best) return *best;
  }
  return {kernel.default_configuration(), ProfileMatch::defaults, std::nullopt, {}, std::nullopt, {}, false};
}

ProfileMatch relation(const DeviceProfile& profile, const DeviceInfo& device) {
  if (profile.fingerprint == device.fingerprint()) return ProfileMatch::device;
  if (profile.backend == device.backend && profile.vendor == device.vendor &&
      profile.architecture == device.architecture) {
    return profile.name == device.name ? ProfileMatch::other_driver : ProfileMatch::architecture;
  }
  if (profile.vendor == device.vendor) return ProfileMatch::vendor;
  return ProfileMatch::defaults;
}

std::string stale_reason(const DeviceProfile& profile, const DeviceInfo& device) {
  if (!profile.driver_version.empty() && profile.driver_version != device.driver_version) {
    return "tuned under driver " + profile.driver_version + "; this device runs driver " + device.driver_version;
  }
  // Same driver (or one not recorded): the compute units differ.
  return "tuned for " + profile.fingerprint + "; this device is " + device.fingerprint();
}

std::filesystem::path ProfileStore::file_for(const std::filesystem::path& dir,
                                             const DeviceInfo& device) {
  // Readable prefix for people listing the folder, hash for uniqueness.
  std::string readable = device.backend + "-" + device.name;
  for (char& c : readable) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_';
    if (!plain) c = '_';
  }
  if (readable.size() > 48) readable.resize(48);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(stable_hash(device.fingerprint())));
  return dir / (readable + "-" + hash + ".json");
}

std::filesystem::path ProfileStore::default_dir() {
  auto from_environment = [](const char* variable, const char* suffix) -> std::filesystem::path {
    const char* value = std::getenv(variable);
    if (value == nullptr || *value == '\0') return {};
    return std::filesystem::path(value) / suffix;
  };
  if (const char* dir = std::getenv("ALLOY_PROFILE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (auto xdg = from_environment("XDG_DATA_HOME", "alloy/profiles"); !xdg.empty()) return xdg;
  return from_environment("HOME", ".local/share/alloy/profiles");
}

}  // namespace alloy
