// Tuning profiles: what the tuner found per device, kernel and problem size,
// and how the runtime picks the entry for a launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "alloy/device_info.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy {

/// One tuned result: the best configuration found for a kernel and problem.
struct ProfileEntry {
  std::string kernel;       ///< TunableKernel::name
  std::string source_hash;  ///< TunableKernel::source_hash() when tuned
  Extent problem;
  std::map<std::string, std::int64_t> configuration;  ///< by parameter name
  double seconds = 0;          ///< measured time of the configuration
  double default_seconds = 0;  ///< of the kernel's default; 0 when unknown
  /// How much the default's time moved between the tuner's confirmation
  /// rounds (relative standard deviation): above 0.1 the entry was measured
  /// on a busy device. 0 when unknown.
  double noise = 0;
  /// The tuner could not tell this configuration from its runners-up on the
  /// device as it was (too noisy, or the budget ended the confirmation): a
  /// best guess to start from, not a finding. Tuning again on an idle
  /// device settles it.
  bool provisional = false;
  /// A configuration the tuner could not tell this one from, and its
  /// confirmed median time.
  struct RunnerUp {
    std::map<std::string, std::int64_t> configuration;
    double seconds = 0;
    bool operator==(const RunnerUp&) const = default;
  };
  std::vector<RunnerUp> runners_up;
  /// For kernels with layout arguments: converting them into the
  /// configuration's layouts and back, per launch. Part of `seconds` unless
  /// `layouts_persist` (the tuner was told the layouts outlive many launches).
  double conversion_seconds = 0;
  bool layouts_persist = false;
  /// The layout arguments (by parameter name) this device converts into
  /// the configuration's layout faster on the host, while staging the
  /// upload, than by a conversion kernel on the device; the others convert
  /// on the device.
  std::vector<std::string> staged_on_host;
  // The tuning budget spent on it.
  std::string strategy;
  std::size_t evaluations = 0;
  std::size_t space_size = 0;
  double tuning_seconds = 0;
  /// Who found it: "autotune" (the offline tuner; also every profile
  /// written before this was recorded) or "online" (a running program).
  std::string provenance = "autotune";
  /// Timed runs behind `seconds` (the tuner's confirmation rounds); 0 when
  /// unknown.
  std::size_t samples = 0;
};

/// The profile of one kind of device (one fingerprint): one file on disk.
struct DeviceProfile {
  std::string fingerprint;
  std::string backend;
  std::string vendor;
  std::string name;
  std::string architecture;
  /// The driver the entries were tuned under; empty in profiles written
  /// before it was recorded (the fingerprint holds it too).
  std::string driver_version;
  std::vector<ProfileEntry> entries;

  static DeviceProfile for_device(const DeviceInfo& info);
  /// Replaces the entry for the same kernel and problem, or appends.
  void put(ProfileEntry entry);
};

/// The JSON text of a profile.
std::string to_json(const DeviceProfile& profile);

/// Parses profile JSON. Rejects, with the reason, anything that is not
/// exactly a profile: malformed JSON, wrong types, missing fields, negative or
/// non-finite numbers, more than 64 levels of nesting, text over 16 MiB.
struct ProfileParse {
  std::optional<DeviceProfile> profile;
  std::string error;  ///< why not, when profile is empty
};
ProfileParse parse_profile(std::string_view text);

/// Writes the profile to `file` whole (a temporary file renamed over it), so
/// readers never see half a profile. Throws Error naming the file.
void write_profile(const std::filesystem::path& file, const DeviceProfile& profile);

/// Which level of the fallback chain answered a lookup.
enum class ProfileMatch {
  device,        ///< a profile of this exact kind of device
  /// A profile of this device (backend, vendor, name and architecture) made
  /// under another driver or compute-unit count: stale, a starting point
  /// rather than the answer. Rerunning `autotune` replaces it.
  other_driver,
  architecture,  ///< another device of the same backend, vendor and architecture
  vendor,        ///< another device of the same vendor
  defaults,      ///< no usable entry: the kernel's own defaults
};
std::string_view to_string(ProfileMatch match);

/// How a profile relates to a device: the level of the fallback chain at
/// which its entries answer lookups for it; `defaults` when they never do.
ProfileMatch relation(const DeviceProfile& profile, const DeviceInfo& device);

/// For a profile whose relation() to `device` is other_driver, in words:
/// "tuned under driver 1.0; this device runs driver 2.0".
std::string stale_reason(const DeviceProfile& profile, const DeviceInfo& device);

/// One profile file as read.
struct StoredProfile {
  DeviceProfile profile;
  std::filesystem::path file;
};

/// The configuration to launch a tunable kernel with, and where it came from.
struct TunedChoice {
  Configuration configuration;
  ProfileMatch match = ProfileMatch::defaults;
  std::optional<Extent> tuned_problem;  ///< the entry's problem: the nearest tuned one
  std::filesystem::path file;           ///< the profile that answered
  /// The entry's measured time, scaled to the wanted problem by the ratio
  /// of their element counts: what the scheduler expects before it has
  /// measured the kernel itself. Nothing for the defaults.
  std::optional<double> seconds;
  /// ProfileEntry::staged_on_host of the entry; empty for the defaults.
  std::vector<std::string> staged_on_host;
  /// ProfileEntry::provisional of the entry: a starting point, which a
  /// caller that can measure should not take as settled.
  bool provisional = false;
};

/// The profiles in a folder (every `*.json` in it) or one file, read on first
/// use and again after reload(). A file that is not a valid profile is skipped
/// with a warning; an entry tuned for another version of a kernel's source
/// (its hash differs) is ignored with a warning; neither is ever an error.
///
/// Lookup order: this exact device → this device under another driver
/// (stale: warned once) → same backend, vendor and architecture → same
/// vendor → the kernel's defaults. Within a level, the entry with the
/// nearest problem wins (the sum over dimensions of |log(tuned / wanted)|),
/// among those whose configuration is valid for the wanted problem and the
/// device's limits. Thread-safe.
class ProfileStore {
 public:
  /// `location`: a folder or a single profile file; empty: no profiles.
  explicit ProfileStore(std::filesystem::path location);

  TunedChoice lookup(const DeviceInfo& device, const TunableKernel& kernel,
                     const Extent& problem) const;

  /// Reads the profiles again (after a tuning run wrote new ones).
  void reload();
  /// Every valid profile at the location, in file-name order.
  std::vector<StoredProfile> profiles() const;
  const std::filesystem::path& location() const { return location_; }

  /// The file the profile of `device` is stored in, inside folder `dir`.
  static std::filesystem::path file_for(const std::filesystem::path& dir, const DeviceInfo& device);
  /// $ALLOY_PROFILE_DIR, else $XDG_DATA_HOME/alloy/profiles, else
  /// ~/.local/share/alloy/profiles; empty when none can be determined.
  static std::filesystem::path default_dir();

 private:
  void load_locked() const;

  std::filesystem::path location_;
  mutable std::mutex mutex_;
  mutable bool loaded_ = false;
  mutable std::vector<StoredProfile> profiles_;
  mutable std::set<std::string> warned_;  // stale or faulty entries already reported
};

}  // namespace alloy
