// Lists, per device, the profiles the runtime's lookup would read for it,
// nearest level first; a stale one says what to do about it.
#include "profile_table.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace alloy::info {
namespace {

struct Answering {
  ProfileMatch level;
  const StoredProfile* stored;
};

/// The profiles that answer lookups for `device`, nearest level first.
std::vector<Answering> answering(const Device& device, const std::vector<StoredProfile>& profiles) {
  std::vector<Answering> found;
  for (const StoredProfile& stored : profiles) {
    const ProfileMatch level = relation(stored.profile, device.info());
    if (level != ProfileMatch::defaults) found.push_back({level, &stored});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Answering& a, const Answering& b) { return a.level < b.level; });
  return found;
}

/// What to do about a profile answering at `level`; empty when nothing.
std::string advice(ProfileMatch level, const DeviceProfile& profile, const DeviceInfo& device) {
  if (level != ProfileMatch::other_driver) return {};
  return "stale: " + stale_reason(profile, device) + "; rerun `autotune` for this driver";
}

std::string seconds_text(double seconds) {
  char text[32];
  if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.3g ms", seconds * 1e3);
  else std::snprintf(text, sizeof text, "%.3g us", seconds * 1e6);
  return text;
}

std::string configuration_text(const std::map<std::string, std::int64_t>& configuration) {
  std::string text;
  for (const auto& [name, value] : configuration) text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return text;
}

std::string entry_line(const ProfileEntry& entry) {
  std::ostringstream line;
  line << entry.kernel << "  " << entry.problem.to_string() << "  " << configuration_text(entry.configuration)
       << "  " << seconds_text(entry.seconds);
  if (entry.samples != 0) line << ", " << entry.samples << " samples";
  if (entry.noise != 0) line << ", noise " << static_cast<int>(entry.noise * 100 + 0.5) << "%";
  if (entry.provisional) line << ", provisional";
  line << ", " << entry.provenance;
  return line.str();
}

nlohmann::json entry_json(const ProfileEntry& entry) {
  nlohmann::json problem = nlohmann::json::array();
  for (unsigned d = 0; d < entry.problem.dimensions; ++d) problem.push_back(entry.problem[d]);
  return {{"kernel", entry.kernel},         {"problem", problem},       {"configuration", entry.configuration},
          {"seconds", entry.seconds},       {"samples", entry.samples}, {"noise", entry.noise},
          {"provisional", entry.provisional}, {"provenance", entry.provenance}};
}

}  // namespace

std::string format_profiles(const std::vector<Device*>& devices, const ProfileStore& store) {
  std::ostringstream out;
  out << "profiles: " << (store.location().empty() ? "(none: no ALLOY_PROFILE_DIR or home folder)"
                                                   : store.location().string())
      << '\n';
  const std::vector<StoredProfile> profiles = store.profiles();
  for (const Device* device : devices) {
    const DeviceInfo& info = device->info();
    out << '\n' << info.backend << ' ' << device->index() << "  " << info.name << "  driver " << info.driver_version
        << '\n';
    const std::vector<Answering> found = answering(*device, profiles);
    if (found.empty()) out << "  no profile answers for it: tunable kernels run their defaults\n";
    for (const Answering& answer : found) {
      out << "  " << to_string(answer.level) << "  " << answer.stored->file.filename().string() << '\n';
      if (const std::string what = advice(answer.level, answer.stored->profile, info); !what.empty()) {
        out << "    " << what << '\n';
      }
      for (const ProfileEntry& entry : answer.stored->profile.entries) out << "    " << entry_line(entry) << '\n';
    }
  }
  return out.str();
}

nlohmann::json profiles_to_json(const std::vector<Device*>& devices, const ProfileStore& store) {
  const std::vector<StoredProfile> profiles = store.profiles();
  nlohmann::json listed = nlohmann::json::array();
  for (const Device* device : devices) {
    nlohmann::json answers = nlohmann::json::array();
    for (const Answering& answer : answering(*device, profiles)) {
      nlohmann::json entries = nlohmann::json::array();
      for (const ProfileEntry& entry : answer.stored->profile.entries) entries.push_back(entry_json(entry));
      answers.push_back({{"file", answer.stored->file.string()},
                         {"level", to_string(answer.level)},
                         {"stale", answer.level == ProfileMatch::other_driver},
                         {"driver_version", answer.stored->profile.driver_version},
                         {"advice", advice(answer.level, answer.stored->profile, device->info())},
                         {"entries", entries}});
    }
    listed.push_back({{"backend", device->info().backend},
                      {"index", device->index()},
                      {"name", device->info().name},
                      {"driver_version", device->info().driver_version},
                      {"profiles", answers}});
  }
  return {{"location", store.location().string()}, {"devices", listed}};
}

}  // namespace alloy::info
