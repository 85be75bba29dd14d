// Profiles: JSON round trip, the lookup fallback chain, nearest problem size,
// stale entries, and corrupt or hostile files (fuzzed).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloy/log.hpp"
#include "alloy/profile.hpp"
#include "support/temporary_folder.hpp"

namespace {

using alloy::DeviceInfo;
using alloy::DeviceProfile;
using alloy::Extent;
using alloy::ProfileEntry;
using alloy::ProfileMatch;
using alloy::ProfileStore;
using alloy::TunableKernel;
using alloy::test::TemporaryFolder;

TunableKernel blocked_kernel() {
  TunableKernel kernel;
  kernel.name = "test.blocked";
  kernel.source = {"blocked.cl", "KERNEL void blocked() {}", ""};
  kernel.kernel_name = "blocked";
  kernel.parameters = {{"BLOCK", {16, 32, 64, 128}, 16, {}}, {"UNROLL", {1, 2, 4}, 1, {}}};
  // BLOCK divides the problem: so an entry for another size can be invalid here.
  kernel.constraints = {{alloy::TuningConstraint::Kind::divides, {1, {"BLOCK"}, {}}, {1, {}, {0}}}};
  kernel.launch = {{0, {}, {1, {"UNROLL"}, {}}, {1, {"BLOCK"}, {}}}};
  return kernel;
}

DeviceInfo device(std::string name, std::string architecture, std::string vendor = "Acme") {
  DeviceInfo info;
  info.backend = "opencl";
  info.name = std::move(name);
  info.vendor = std::move(vendor);
  info.architecture = std::move(architecture);
  info.driver_version = "1.0";
  info.compute_units = 8;
  info.max_work_group_size = 1024;
  info.max_work_item_sizes = {1024, 1024, 64};
  info.local_memory_bytes = 65536;
  return info;
}

ProfileEntry entry(const TunableKernel& kernel, Extent problem, std::int64_t block, std::int64_t unroll) {
  ProfileEntry result;
  result.kernel = kernel.name;
  result.source_hash = kernel.source_hash();
  result.problem = problem;
  result.configuration = {{"BLOCK", block}, {"UNROLL", unroll}};
  result.seconds = 1e-3;
  result.default_seconds = 4e-3;
  result.noise = 0.25;
  result.provisional = true;
  result.runners_up = {{{{"BLOCK", 32}, {"UNROLL", 1}}, 1.1e-3}};
  result.staged_on_host = {"particles"};
  result.strategy = "annealing";
  result.evaluations = 12;
  result.space_size = 12;
  result.tuning_seconds = 3.5;
  result.provenance = "online";
  result.samples = 9;
  return result;
}

// Collects warnings while alive.
struct CapturedWarnings {
  std::mutex mutex;
  std::vector<std::string> messages;
  alloy::LogSink previous;
  CapturedWarnings() {
    previous = alloy::set_log_sink([this](alloy::LogLevel level, std::string_view message) {
      std::lock_guard lock(mutex);
      if (level == alloy::LogLevel::warning) messages.emplace_back(message);
    });
  }
  ~CapturedWarnings() { alloy::set_log_sink(previous); }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return messages.size();
  }
};

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

// Writes `info`'s profile, holding `one`, into `folder`; returns it.
DeviceProfile write_profile_of(const std::filesystem::path& folder, const DeviceInfo& info, ProfileEntry one) {
  DeviceProfile profile = DeviceProfile::for_device(info);
  profile.put(std::move(one));
  alloy::write_profile(ProfileStore::file_for(folder, info), profile);
  return profile;
}

}  // namespace

TEST_CASE("Autotune.Profile.json_round_trip") {
  const TunableKernel kernel = blocked_kernel();
  DeviceProfile profile = DeviceProfile::for_device(device("Widget 9000", "w9"));
  profile.put(entry(kernel, Extent(1024), 64, 2));
  profile.put(entry(kernel, Extent(256, 3), 32, 4));
  profile.put(entry(kernel, Extent(1024), 128, 1));  // replaces the first
  REQUIRE(profile.entries.size() == 2);
  const alloy::ProfileParse parsed = alloy::parse_profile(alloy::to_json(profile));
  REQUIRE_MESSAGE(parsed.profile, parsed.error);
  CHECK(parsed.profile->fingerprint == profile.fingerprint);
  CHECK(parsed.profile->architecture == "w9");
  CHECK(parsed.profile->driver_version == "1.0");
  REQUIRE(parsed.profile->entries.size() == 2);
  const ProfileEntry& first = parsed.profile->entries[0];
  CHECK(first.configuration.at("BLOCK") == 128);
  CHECK(first.problem.dimensions == 1);
  CHECK(first.problem[0] == 1024);
  CHECK(first.seconds == doctest::Approx(1e-3));
  CHECK(first.default_seconds == doctest::Approx(4e-3));
  CHECK(first.noise == doctest::Approx(0.25));
  CHECK(first.provisional);
  REQUIRE(first.runners_up.size() == 1);
  CHECK(first.runners_up[0].configuration == std::map<std::string, std::int64_t>{{"BLOCK", 32}, {"UNROLL", 1}});
  CHECK(first.runners_up[0].seconds == doctest::Approx(1.1e-3));
  CHECK(first.staged_on_host == std::vector<std::string>{"particles"});
  CHECK(first.strategy == "annealing");
  CHECK(first.evaluations == 12);
  CHECK(first.tuning_seconds == doctest::Approx(3.5));
  CHECK(first.provenance == "online");
  CHECK(first.samples == 9);
  CHECK(parsed.profile->entries[1].problem.to_string() == "256x3");
}

TEST_CASE("Autotune.Profile.files_from_before_driver_and_provenance_were_recorded_still_read") {
  const TunableKernel kernel = blocked_kernel();
  DeviceProfile profile = DeviceProfile::for_device(device("Widget 9000", "w9"));
  profile.put(entry(kernel, Extent(1024), 64, 2));
  nlohmann::json document = nlohmann::json::parse(alloy::to_json(profile));
  document["device"].erase("driver_version");
  document["entries"][0].erase("provenance");
  document["entries"][0].erase("samples");
  alloy::ProfileParse parsed = alloy::parse_profile(document.dump());
  REQUIRE_MESSAGE(parsed.profile, parsed.error);
  CHECK(parsed.profile->driver_version.empty());
  CHECK(parsed.profile->entries[0].provenance == "autotune");
  CHECK(parsed.profile->entries[0].samples == 0);

  // A provenance the format does not know, or a count that is not one, is refused.
  document["entries"][0]["provenance"] = "guessed";
  parsed = alloy::parse_profile(document.dump());
  CHECK_FALSE(parsed.profile);
  CHECK(parsed.error.find("provenance") != std::string::npos);
  document["entries"][0]["provenance"] = "autotune";
  document["entries"][0]["samples"] = -3;
  CHECK_FALSE(alloy::parse_profile(document.dump()).profile);
}

TEST_CASE("Autotune.Profile.a_profile_of_this_device_under_another_driver_is_stale_and_answers_before_its_siblings") {
  const TunableKernel kernel = blocked_kernel();
  TemporaryFolder folder("driver");
  DeviceInfo updated = device("Widget 9000", "w9");
  updated.driver_version = "2.0";
  const DeviceInfo before_update = device("Widget 9000", "w9");  // driver 1.0
  const DeviceInfo sibling = device("Widget 9000 Pro", "w9");

  const DeviceProfile old_profile = write_profile_of(folder.path, before_update, entry(kernel, Extent(4096), 128, 4));
  const DeviceProfile sibling_profile = write_profile_of(folder.path, sibling, entry(kernel, Extent(4096), 64, 1));

  CHECK(alloy::relation(old_profile, updated) == ProfileMatch::other_driver);
  CHECK(alloy::relation(old_profile, before_update) == ProfileMatch::device);
  CHECK(alloy::relation(sibling_profile, updated) == ProfileMatch::architecture);
  CHECK(alloy::stale_reason(old_profile, updated) == "tuned under driver 1.0; this device runs driver 2.0");
  // The same driver with other compute units is another fingerprint: stale too.
  DeviceInfo fewer_units = before_update;
  fewer_units.compute_units = 4;
  CHECK(alloy::relation(old_profile, fewer_units) == ProfileMatch::other_driver);
  CHECK(alloy::stale_reason(old_profile, fewer_units).find("this device is " + fewer_units.fingerprint()) !=
        std::string::npos);

  CapturedWarnings warnings;
  ProfileStore store(folder.path);
  alloy::TunedChoice choice = store.lookup(updated, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::other_driver);
  CHECK(choice.configuration == alloy::Configuration{128, 4});
  CHECK(alloy::to_string(choice.match) == "other-driver");
  store.lookup(updated, kernel, Extent(2048));
  REQUIRE(warnings.count() == 1);  // once per file and device
  CHECK(warnings.messages[0].find("driver 1.0") != std::string::npos);
  CHECK(warnings.messages[0].find("driver 2.0") != std::string::npos);
  CHECK(warnings.messages[0].find("autotune") != std::string::npos);

  // The device under its old driver still reads its own profile, unwarned.
  CHECK(store.lookup(before_update, kernel, Extent(4096)).match == ProfileMatch::device);
  CHECK(warnings.count() == 1);

  // Tuning under the new driver writes a profile that answers at the device level.
  write_profile_of(folder.path, updated, entry(kernel, Extent(4096), 32, 2));
  store.reload();
  choice = store.lookup(updated, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::device);
  CHECK(choice.configuration == alloy::Configuration{32, 2});
  CHECK(store.profiles().size() == 3);
}

TEST_CASE("Autotune.Profile.lookup_falls_back_device_architecture_vendor_defaults") {
  const TunableKernel kernel = blocked_kernel();
  TemporaryFolder folder("chain");
  const DeviceInfo exact = device("Widget 9000", "w9");
  const DeviceInfo sibling = device("Widget 9000 Pro", "w9");  // same architecture
  const DeviceInfo cousin = device("Widget 7000", "w7");       // same vendor only
  const DeviceInfo stranger = device("Gadget", "g1", "Other Corp");

  write_profile_of(folder.path, exact, entry(kernel, Extent(4096), 128, 4));

  ProfileStore store(folder.path);
  alloy::TunedChoice choice = store.lookup(exact, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::device);
  CHECK(choice.configuration == alloy::Configuration{128, 4});
  CHECK(choice.file == ProfileStore::file_for(folder.path, exact));
  CHECK(choice.provisional);  // a starting point, as the entry says

  choice = store.lookup(sibling, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::architecture);
  CHECK(choice.configuration == alloy::Configuration{128, 4});

  choice = store.lookup(cousin, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::vendor);

  choice = store.lookup(stranger, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::defaults);
  CHECK(choice.configuration == kernel.default_configuration());
  CHECK_FALSE(choice.tuned_problem);

  // A closer level wins once it exists: the sibling gets its own profile.
  write_profile_of(folder.path, sibling, entry(kernel, Extent(4096), 64, 1));
  store.reload();
  choice = store.lookup(sibling, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::device);
  CHECK(choice.configuration == alloy::Configuration{64, 1});
  // ... and the exact device still prefers its own.
  CHECK(store.lookup(exact, kernel, Extent(4096)).configuration == alloy::Configuration{128, 4});

  // No profiles at all: defaults, silently.
  CapturedWarnings warnings;
  ProfileStore empty(folder.path / "missing");
  CHECK(empty.lookup(exact, kernel, Extent(4096)).match == ProfileMatch::defaults);
  CHECK(ProfileStore({}).lookup(exact, kernel, Extent(4096)).match == ProfileMatch::defaults);
  CHECK(warnings.count() == 0);
}

TEST_CASE("Autotune.Profile.untuned_size_takes_nearest_valid_tuned_size") {
  const TunableKernel kernel = blocked_kernel();
  TemporaryFolder folder("nearest");
  const DeviceInfo info = device("Widget 9000", "w9");
  DeviceProfile profile = DeviceProfile::for_device(info);
  profile.put(entry(kernel, Extent(512), 32, 1));
  profile.put(entry(kernel, Extent(4096), 128, 2));
  profile.put(entry(kernel, Extent(65536), 64, 4));
  const std::filesystem::path file = folder.path / "one-profile.json";
  alloy::write_profile(file, profile);
  ProfileStore store(file);  // a single file works as well as a folder

  auto chosen = [&](std::size_t n) { return store.lookup(info, kernel, Extent(n)); };
  CHECK(chosen(4096).tuned_problem->size[0] == 4096);    // exact
  CHECK(chosen(2048).tuned_problem->size[0] == 4096);    // log distance 1 vs 2
  CHECK(chosen(1024).tuned_problem->size[0] == 512);     // 1 vs 2: nearer 512
  CHECK(chosen(1 << 20).tuned_problem->size[0] == 65536);
  CHECK(chosen(1 << 20).configuration == alloy::Configuration{64, 4});
  // 96 is not a multiple of the 128-block nearest entry's BLOCK, nor 64; the
  // 512 entry's BLOCK=32 divides it: the nearest *valid* entry wins.
  CHECK(chosen(96).configuration == alloy::Configuration{32, 1});
  // The entry's time, scaled by elements, is what the scheduler expects.
  CHECK(*chosen(4096).seconds == doctest::Approx(1e-3));
  CHECK(*chosen(2048).seconds == doctest::Approx(0.5e-3));
  CHECK(*chosen(1 << 20).seconds == doctest::Approx(16e-3));
  CHECK_FALSE(chosen(40).seconds);
  // 2-D problems never take 1-D entries.
  CHECK(store.lookup(info, kernel, Extent(4096, 1)).match == ProfileMatch::defaults);
  // Nothing valid: 40 has no block among the entries that divides it.
  CHECK(chosen(40).match == ProfileMatch::defaults);
}

TEST_CASE("Autotune.Profile.stale_entry_ignored_with_one_warning") {
  TunableKernel kernel = blocked_kernel();
  TemporaryFolder folder("stale");
  const DeviceInfo info = device("Widget 9000", "w9");
  write_profile_of(folder.path, info, entry(kernel, Extent(4096), 128, 4));

  kernel.source.source += "\n// edited since tuning\n";
  CapturedWarnings warnings;
  ProfileStore store(folder.path);
  CHECK(store.lookup(info, kernel, Extent(4096)).match == ProfileMatch::defaults);
  CHECK(store.lookup(info, kernel, Extent(4096)).match == ProfileMatch::defaults);
  REQUIRE(warnings.count() == 1);
  CHECK(warnings.messages[0].find("another version of its source") != std::string::npos);
}

TEST_CASE("Autotune.Profile.corrupt_files_warn_and_leave_others_usable") {
  const TunableKernel kernel = blocked_kernel();
  TemporaryFolder folder("corrupt");
  const DeviceInfo info = device("Widget 9000", "w9");
  DeviceProfile good = DeviceProfile::for_device(info);
  good.put(entry(kernel, Extent(4096), 128, 4));
  alloy::write_profile(folder.path / "b-good.json", good);
  std::string text = alloy::to_json(good);
  write_text(folder.path / "a-truncated.json", text.substr(0, text.size() / 2));
  write_text(folder.path / "c-binary.json", std::string("\x7f" "ELF\x02\x01\x01\0\0", 9));
  write_text(folder.path / "d-empty.json", "");
  write_text(folder.path / "e-deep.json", std::string(100000, '[') + std::string(100000, ']'));
  write_text(folder.path / "f-not-a-profile.json", R"({"format":"something-else","version":1})");
  write_text(folder.path / "notes.txt", "not json, and not *.json: never read");

  CapturedWarnings warnings;
  ProfileStore store(folder.path);
  const alloy::TunedChoice choice = store.lookup(info, kernel, Extent(4096));
  CHECK(choice.match == ProfileMatch::device);
  CHECK(choice.configuration == alloy::Configuration{128, 4});
  CHECK(warnings.count() == 5);  // one per bad *.json file, read once
  store.lookup(info, kernel, Extent(4096));
  CHECK(warnings.count() == 5);
}

TEST_CASE("Autotune.Profile.hostile_values_rejected") {
  const TunableKernel kernel = blocked_kernel();
  DeviceProfile profile = DeviceProfile::for_device(device("Widget 9000", "w9"));
  profile.put(entry(kernel, Extent(4096), 128, 4));
  const std::string good = alloy::to_json(profile);
  REQUIRE(alloy::parse_profile(good).profile);

  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    text.replace(at, from.size(), to);
    return text;
  };
  const std::vector<std::string> hostile = {
      with("\"seconds\": 0.001", "\"seconds\": -1"),
      with("\"seconds\": 0.001", "\"seconds\": 1e999"),
      with("\"seconds\": 0.001", "\"seconds\": \"fast\""),
      with("4096", "0"),
      with("4096", "18446744073709551615"),
      with("4096", "-4096"),
      with("4096", "4096.5"),
      with("\"BLOCK\": 128", "\"BLOCK\": 9223372036854775808"),
      with("\"BLOCK\": 128", "\"BLOCK\": [128]"),
      with("\"version\": 1", "\"version\": 2"),
      with("\"entries\": [", "\"entries\": {\"x\": ["),
      with("\"kernel\": \"test.blocked\"", "\"kernel\": 7"),
      with("\"evaluations\": 12", "\"evaluations\": -12"),
      with("\"noise\": 0.25", "\"noise\": -0.25"),
      with("\"noise\": 0.25", "\"noise\": \"high\""),
      with("\"provisional\": true", "\"provisional\": 1"),
      with("\"runners_up\": [", "\"runners_up\": 3, \"ignored\": ["),
      with("\"BLOCK\": 32", "\"BLOCK\": \"32\""),
      with("\"seconds\": 0.0011", "\"seconds\": -0.0011"),
      with("\"particles\"", "7"),
      with("\"staged_on_host\": [", "\"staged_on_host\": \"particles\", \"ignored\": ["),
      std::string(17u << 20, ' '),
      "[]",
      "null",
      "{\"format\": \"alloy-profile\"}",
  };
  // Profiles from before the noise was measured still read, as unknown noise.
  const alloy::ProfileParse older = alloy::parse_profile(with("\"noise\": 0.25,", ""));
  REQUIRE_MESSAGE(older.profile, older.error);
  CHECK(older.profile->entries[0].noise == 0.0);
  // ... and from before provisional entries, as settled ones.
  const alloy::ProfileParse settled = alloy::parse_profile(with("\"provisional\": true,", ""));
  REQUIRE_MESSAGE(settled.profile, settled.error);
  CHECK_FALSE(settled.profile->entries[0].provisional);
  for (const std::string& text : hostile) {
    const alloy::ProfileParse parsed = alloy::parse_profile(text);
    CAPTURE(text.substr(0, 200));
    CHECK_FALSE(parsed.profile);
    CHECK_FALSE(parsed.error.empty());
  }
}

TEST_CASE("Autotune.Profile.fuzzed_inputs_never_crash") {
  const TunableKernel kernel = blocked_kernel();
  DeviceProfile profile = DeviceProfile::for_device(device("Widget 9000", "w9"));
  profile.put(entry(kernel, Extent(4096), 128, 4));
  profile.put(entry(kernel, Extent(64, 64), 16, 2));
  const std::string good = alloy::to_json(profile);
  const unsigned seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937 random(seed);
  using namespace std::string_literals;
  const std::string alphabet = "{}[]\":,0123456789.eE+-truefalsnl \\\n\x00\xff"s;
  std::size_t accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = good;
    const int edits = 1 + static_cast<int>(random() % 8);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 4) {
        case 0: text[at] = alphabet[random() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + random() % 16); break;
        case 2: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
        default: text.resize(at); break;
      }
    }
    const alloy::ProfileParse parsed = alloy::parse_profile(text);
    // Either a whole profile or a reason: never both, never neither.
    CHECK(parsed.profile.has_value() == parsed.error.empty());
    if (parsed.profile) {
      ++accepted;
      for (const ProfileEntry& parsed_entry : parsed.profile->entries) {
        CHECK(parsed_entry.problem.dimensions >= 1);
        CHECK(parsed_entry.seconds >= 0);
      }
    }
  }
  for (int round = 0; round < 2000; ++round) {
    std::string text(random() % 512, '\0');
    for (char& c : text) c = static_cast<char>(random());
    const alloy::ProfileParse parsed = alloy::parse_profile(text);
    CHECK(parsed.profile.has_value() == parsed.error.empty());
  }
  MESSAGE(accepted << " of 20000 mutated profiles still parsed");
}

TEST_CASE("Autotune.Profile.hostile_configurations_warn_once_per_entry") {
  const TunableKernel kernel = blocked_kernel();
  TemporaryFolder folder("hostile-entries");
  const DeviceInfo info = device("Widget 9000", "w9");
  DeviceProfile profile = DeviceProfile::for_device(info);
  auto hostile = [&](Extent problem, std::map<std::string, std::int64_t> configuration) {
    ProfileEntry bad = entry(kernel, problem, 16, 1);
    bad.configuration = std::move(configuration);
    profile.put(bad);
  };
  hostile(Extent(4096), {{"BLOCK", 48}, {"UNROLL", 1}});                          // not in the list
  hostile(Extent(8192), {{"BLOCK", -16}, {"UNROLL", 1}});                         // negative
  hostile(Extent(2048), {{"BLOCK", 1'000'000'000'000'000'000}, {"UNROLL", 1}});  // 10^18
  hostile(Extent(1024), {{"BLOCK", 16}});                                         // UNROLL missing
  hostile(Extent(512), {{"BLOCK", 16}, {"UNROLL", 1}, {"EXTRA", 3}});             // an extra one
  hostile(Extent(1000), {{"BLOCK", 128}, {"UNROLL", 1}});  // 128 does not divide its own 1000
  // Sound, but not for the size looked up (128 does not divide 4000): no warning.
  profile.put(entry(kernel, Extent(16384), 128, 2));
  const std::filesystem::path file = ProfileStore::file_for(folder.path, info);
  alloy::write_profile(file, profile);

  CapturedWarnings warnings;
  ProfileStore store(folder.path);
  for (int lookup = 0; lookup < 3; ++lookup) {
    const alloy::TunedChoice choice = store.lookup(info, kernel, Extent(4000));
    CHECK(choice.match == ProfileMatch::defaults);
    CHECK(choice.configuration == kernel.default_configuration());
  }
  REQUIRE(warnings.count() == 6);
  const std::vector<std::string> reasons = {
      "test.blocked 4096 is ignored: its configuration BLOCK=48 is not one of its values",
      "test.blocked 8192 is ignored: its configuration BLOCK=-16 is not one of its values",
      "test.blocked 2048 is ignored: its configuration BLOCK=1000000000000000000 is not one of its values",
      "test.blocked 1024 is ignored: it sets BLOCK; the kernel has BLOCK, UNROLL",
      "test.blocked 512 is ignored: it sets BLOCK, EXTRA, UNROLL; the kernel has BLOCK, UNROLL",
      "test.blocked 1000 is ignored: its configuration breaks BLOCK divides problem[0] (here 128 and 1000)"};
  for (const std::string& reason : reasons) {
    CAPTURE(reason);
    const bool found = std::any_of(warnings.messages.begin(), warnings.messages.end(), [&](const std::string& m) {
      return m.rfind("profile " + file.string() + ": the entry for ", 0) == 0 && m.find(reason) != std::string::npos;
    });
    CHECK(found);
  }
}
