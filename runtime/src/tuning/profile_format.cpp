// Profile files as JSON: writing them, and reading them as untrusted input.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <system_error>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "alloy/error.hpp"
#include "alloy/profile.hpp"

namespace alloy {
namespace {

using nlohmann::json;

constexpr std::string_view format_name = "alloy-profile";
constexpr int format_version = 1;
constexpr std::size_t max_text_bytes = 16u << 20;
constexpr int max_nesting = 64;
constexpr std::uint64_t max_extent = std::uint64_t{1} << 40;

// nlohmann's parser keeps its own stack, but a file of a million '[' would
// still cost memory and time for nothing: reject deep nesting first.
bool nesting_within_limit(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_nesting) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// Thrown inside the parser only, turned into ProfileParse::error.
struct Malformed {
  std::string reason;
};

const json& field(const json& object, const char* key, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end()) throw Malformed{where + " has no \"" + key + "\""};
  return *found;
}

std::string string_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_string()) throw Malformed{where + ": \"" + key + "\" is not a string"};
  return value.get<std::string>();
}

double seconds_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_number()) throw Malformed{where + ": \"" + key + "\" is not a number"};
  const double seconds = value.get<double>();
  if (!std::isfinite(seconds) || seconds < 0) {
    throw Malformed{where + ": \"" + key + "\" is negative or not finite"};
  }
  return seconds;
}

std::uint64_t count_field(const json& object, const char* key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_number_unsigned()) throw Malformed{where + ": \"" + key + "\" is not a count"};
  return value.get<std::uint64_t>();
}

Extent parse_problem(const json& value, const std::string& where) {
  if (!value.is_array() || value.empty() || value.size() > 3) {
    throw Malformed{where + ": \"problem\" is not an array of 1 to 3 sizes"};
  }
  std::array<std::size_t, 3> size{1, 1, 1};
  for (std::size_t d = 0; d < value.size(); ++d) {
    if (!value[d].is_number_unsigned() || value[d].get<std::uint64_t>() == 0 ||
        value[d].get<std::uint64_t>() > max_extent) {
      throw Malformed{where + ": problem size " + std::to_string(d) + " is not a positive count"};
    }
    size[d] = static_cast<std::size_t>(value[d].get<std::uint64_t>());
  }
  switch (value.size()) {
    case 1: return Extent(size[0]);
    case 2: return Extent(size[0], size[1]);
    default: return Extent(size[0], size[1], size[2]);
  }
}

std::map<std::string, std::int64_t> parse_configuration(const json& value, const std::string& where) {
  if (!value.is_object()) throw Malformed{where + ": \"configuration\" is not an object"};
  std::map<std::string, std::int64_t> configuration;
  for (const auto& [name, parameter] : value.items()) {
    if (!parameter.is_number_integer()) {
      throw Malformed{where + ": parameter \"" + name + "\" is not an integer"};
    }
    if (parameter.is_number_unsigned() &&
        parameter.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      throw Malformed{where + ": parameter \"" + name + "\" is out of range"};
    }
    configuration[name] = parameter.get<std::int64_t>();
  }
  return configuration;
}

ProfileEntry parse_entry(const json& value, std::size_t index) {
  const std::string where = "entry " + std::to_string(index);
  if (!value.is_object()) throw Malformed{where + " is not an object"};
  ProfileEntry entry;
  entry.kernel = string_field(value, "kernel", where);
  entry.source_hash = string_field(value, "source_hash", where);
  entry.problem = parse_problem(field(value, "problem", where), where);
  entry.configuration = parse_configuration(field(value, "configuration", where), where);
  entry.seconds = seconds_field(value, "seconds", where);
  entry.default_seconds = seconds_field(value, "default_seconds", where);
  // Optional: profiles written before it was measured lack it.
  if (value.contains("noise")) entry.noise = seconds_field(value, "noise", where);
  if (value.contains("provisional")) {
    const json& provisional = value["provisional"];
    if (!provisional.is_boolean()) throw Malformed{where + ": \"provisional\" is not true or false"};
    entry.provisional = provisional.get<bool>();
  }
  if (value.contains("runners_up")) {
    const json& runners_up = value["runners_up"];
    if (!runners_up.is_array()) throw Malformed{where + ": \"runners_up\" is not an array"};
    for (std::size_t r = 0; r < runners_up.size(); ++r) {
      const std::string runner = where + " runner-up " + std::to_string(r);
      if (!runners_up[r].is_object()) throw Malformed{runner + " is not an object"};
      entry.runners_up.push_back({parse_configuration(field(runners_up[r], "configuration", runner), runner),
                                  seconds_field(runners_up[r], "seconds", runner)});
    }
  }
  if (value.contains("conversion_seconds")) {
    entry.conversion_seconds = seconds_field(value, "conversion_seconds", where);
    const json& persist = field(value, "layouts_persist", where);
    if (!persist.is_boolean()) throw Malformed{where + ": \"layouts_persist\" is not true or false"};
    entry.layouts_persist = persist.get<bool>();
  }
  if (value.contains("staged_on_host")) {
    const json& staged = value["staged_on_host"];
    if (!staged.is_array()) throw Malformed{where + ": \"staged_on_host\" is not an array"};
    for (const json& parameter : staged) {
      if (!parameter.is_string()) throw Malformed{where + ": \"staged_on_host\" holds a value that is not a name"};
      entry.staged_on_host.push_back(parameter.get<std::string>());
    }
  }
  const json& budget = field(value, "budget", where);
  if (!budget.is_object()) throw Malformed{where + ": \"budget\" is not an object"};
  entry.strategy = string_field(budget, "strategy", where + " budget");
  entry.evaluations = count_field(budget, "evaluations", where + " budget");
  entry.space_size = count_field(budget, "space_size", where + " budget");
  entry.tuning_seconds = seconds_field(budget, "seconds", where + " budget");
  // Optional: profiles written before provenance was recorded came from autotune.
  if (value.contains("provenance")) {
    entry.provenance = string_field(value, "provenance", where);
    if (entry.provenance != "autotune" && entry.provenance != "online") {
      throw Malformed{where + ": \"provenance\" is neither \"autotune\" nor \"online\""};
    }
  }
  if (value.contains("samples")) entry.samples = count_field(value, "samples", where);
  return entry;
}

}  // namespace

DeviceProfile DeviceProfile::for_device(const DeviceInfo& info) {
  return {info.fingerprint(), info.backend, info.vendor, info.name, info.architecture, info.driver_version, {}};
}

void DeviceProfile::put(ProfileEntry entry) {
  for (ProfileEntry& existing : entries) {
    if (existing.kernel == entry.kernel && existing.problem.size == entry.problem.size &&
        existing.problem.dimensions == entry.problem.dimensions) {
      existing = std::move(entry);
      return;
    }
  }
  entries.push_back(std::move(entry));
}

std::string to_json(const DeviceProfile& profile) {
  json entries = json::array();
  for (const ProfileEntry& entry : profile.entries) {
    json problem = json::array();
    for (unsigned d = 0; d < entry.problem.dimensions; ++d) problem.push_back(entry.problem[d]);
    json runners_up = json::array();
    for (const ProfileEntry::RunnerUp& runner : entry.runners_up) {
      runners_up.push_back({{"configuration", runner.configuration}, {"seconds", runner.seconds}});
    }
    entries.push_back({{"kernel", entry.kernel},
                       {"source_hash", entry.source_hash},
                       {"problem", problem},
                       {"configuration", entry.configuration},
                       {"seconds", entry.seconds},
                       {"default_seconds", entry.default_seconds},
                       {"noise", entry.noise},
                       {"provisional", entry.provisional},
                       {"runners_up", runners_up},
                       {"conversion_seconds", entry.conversion_seconds},
                       {"layouts_persist", entry.layouts_persist},
                       {"staged_on_host", entry.staged_on_host},
                       {"provenance", entry.provenance},
                       {"samples", entry.samples},
                       {"budget",
                        {{"strategy", entry.strategy},
                         {"evaluations", entry.evaluations},
                         {"space_size", entry.space_size},
                         {"seconds", entry.tuning_seconds}}}});
  }
  const json document = {{"format", format_name},
                         {"version", format_version},
                         {"device",
                          {{"fingerprint", profile.fingerprint},
                           {"backend", profile.backend},
                           {"vendor", profile.vendor},
                           {"name", profile.name},
                           {"architecture", profile.architecture},
                           {"driver_version", profile.driver_version}}},
                         {"entries", entries}};
  // Device names from drivers are not always valid UTF-8: replace, never throw.
  return document.dump(2, ' ', false, json::error_handler_t::replace) + '\n';
}

ProfileParse parse_profile(std::string_view text) {
  if (text.size() > max_text_bytes) {
    return {std::nullopt, "larger than 16 MiB, which no profile is"};
  }
  if (!nesting_within_limit(text)) return {std::nullopt, "nested deeper than any profile is"};
  const json document = json::parse(text, nullptr, false);
  if (document.is_discarded()) return {std::nullopt, "not valid JSON"};
  try {
    if (!document.is_object()) throw Malformed{"the top level is not an object"};
    if (string_field(document, "format", "the profile") != format_name) {
      throw Malformed{"\"format\" is not \"alloy-profile\""};
    }
    const json& version = field(document, "version", "the profile");
    if (!version.is_number_integer() || version.get<std::int64_t>() != format_version) {
      throw Malformed{"format version is not " + std::to_string(format_version)};
    }
    const json& device = field(document, "device", "the profile");
    if (!device.is_object()) throw Malformed{"\"device\" is not an object"};
    DeviceProfile profile;
    profile.fingerprint = string_field(device, "fingerprint", "device");
    profile.backend = string_field(device, "backend", "device");
    profile.vendor = string_field(device, "vendor", "device");
    profile.name = string_field(device, "name", "device");
    profile.architecture = string_field(device, "architecture", "device");
    // Optional: profiles written before it was recorded lack it.
    if (device.contains("driver_version")) profile.driver_version = string_field(device, "driver_version", "device");
    const json& entries = field(document, "entries", "the profile");
    if (!entries.is_array()) throw Malformed{"\"entries\" is not an array"};
    for (std::size_t i = 0; i < entries.size(); ++i) profile.entries.push_back(parse_entry(entries[i], i));
    return {std::move(profile), {}};
  } catch (const Malformed& malformed) {
    return {std::nullopt, malformed.reason};
  } catch (const json::exception& error) {
    // A type nlohmann cannot convert: still just a malformed profile.
    return {std::nullopt, error.what()};
  }
}

void write_profile(const std::filesystem::path& file, const DeviceProfile& profile) {
  std::error_code error;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  if (error) {
    throw Error("write profile: cannot create folder " + file.parent_path().string() + ": " +
                error.message() + "; set ALLOY_PROFILE_DIR to a writable folder");
  }
  // A unique temporary name, so two writers (processes or threads) never
  // mix bytes; the rename then replaces the file whole.
  const std::filesystem::path temporary = file.string() + ".tmp" +
                                          std::to_string(static_cast<long>(::getpid())) + "-" +
                                          std::to_string(std::random_device{}());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << to_json(profile);
    out.close();
    if (!out) {
      std::filesystem::remove(temporary, error);
      throw Error("write profile: cannot write " + temporary.string() +
                  "; check the folder's permissions and free space");
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    const std::string reason = error.message();
    std::filesystem::remove(temporary, error);
    throw Error("write profile: cannot rename it to " + file.string() + ": " + reason);
  }
}

std::string_view to_string(ProfileMatch match) {
  switch (match) {
    case ProfileMatch::device: return "device";
    case ProfileMatch::other_driver: return "other-driver";
    case ProfileMatch::architecture: return "architecture";
    case ProfileMatch::vendor: return "vendor";
    case ProfileMatch::defaults: return "defaults";
  }
  return "?";
}

}  // namespace alloy
