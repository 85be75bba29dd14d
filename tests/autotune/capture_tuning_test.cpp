// Capture → tune → profile → run, end to end: a program's launch captured
// with its real data, tuned over its layouts on that data with every
// configuration checked against the captured outputs, and the profile then
// used by the same program without a change to it.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "alloy/autotune/capture_target.hpp"
#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/tuner.hpp"
#include "alloy/capture.hpp"
#include "alloy/executor.hpp"
#include "support/build_paths.hpp"
#include "support/capture_bytes.hpp"
#include "support/layout_kernels.hpp"
#include "support/random_seed.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

// Runs record_step over `particles` on `device`, capturing into `folder`
// when asked; returns the results.
std::vector<StepResult> run_step(Runtime& runtime, Device& device, const std::vector<Particle>& particles,
                                 const std::filesystem::path& capture_folder) {
  ExecutorOptions options;
  options.devices = {&device};
  if (!capture_folder.empty()) {
    options.capture = "test.record_step";
    options.capture_directory = capture_folder;
  }
  const int n = int(particles.size());
  Buffer<Particle> input{std::span<const Particle>(particles)};
  input.describe(particle_record());
  Buffer<StepResult> results(particles.size());
  results.describe(step_result_record());
  Executor executor(runtime, options);
  executor.kernel(record_step_kernel(), Extent(particles.size()), {n, read(input), write(results)});
  executor.synchronize(results);
  executor.wait();
  return {results.host().begin(), results.host().end()};
}

void check_results(const std::vector<Particle>& particles, const std::vector<StepResult>& results) {
  REQUIRE(results.size() == particles.size());
  for (std::size_t i = 0; i < particles.size(); ++i) {
    CAPTURE(i);
    REQUIRE(results[i].sum == particles[i].x + particles[i].y);
    REQUIRE(results[i].tag == particles[i].count * 3 + particles[i].id);
    REQUIRE(results[i].small == static_cast<std::uint16_t>(particles[i].flags + particles[i].weight));
  }
}

}  // namespace

TEST_CASE("Autotune.Capture.capture_tune_profile_run") {
  for_each_device([](Device& device) {
    const int n = 3001;
    const std::vector<Particle> particles = random_particles(n, 17);
    TemporaryFolder folder("capture-tuning");
    check_results(particles, run_step(runtime(), device, particles, folder.path));
    const Capture capture = read_capture(folder.path / capture_file_name("test.record_step", Extent(std::size_t(n))));
    CHECK(capture.configuration == record_step_kernel().default_configuration());

    const autotune::TuningTarget target = autotune::capture_target(capture);
    autotune::ResultsLog log(folder.path / "log.jsonl");
    autotune::TuneOptions options;
    options.strategy = "exhaustive";
    const autotune::TuningResult result = autotune::tune(runtime(), device, target, capture.problem, options, log);
    // Every pair of layouts reproduces the captured outputs exactly.
    REQUIRE(result.best);
    CHECK(result.space_size == 16);
    CHECK(result.outcomes.at(autotune::Outcome::ok) == 16);
    MESSAGE("record_step " << n << " on " << device.label() << ": default " << *result.default_seconds * 1e6
                           << " us, tuned " << describe(target.kernel, *result.best) << " "
                           << *result.best_seconds * 1e6 << " us");

    autotune::record_in_profile(folder.path, device.info(), target, result, options);
    for (const auto& entry : std::filesystem::directory_iterator(folder.path)) {
      CHECK_MESSAGE(entry.path().extension() != ".lock", "autotune left " << entry.path());
    }
    ProfiledRuntime profiled = runtime_with_profiles(folder.path, device);
    const TunedKernel tuned = profiled.runtime->tuned(*profiled.device, record_step_kernel(), capture.problem);
    CHECK(tuned.choice.match == ProfileMatch::device);
    CHECK(tuned.choice.configuration == *result.best);
    // The same program, now in the tuned layouts, computes the same.
    check_results(particles, run_step(*profiled.runtime, *profiled.device, particles, {}));
  });
}

TEST_CASE("Autotune.Capture.a_configuration_must_reproduce_the_captured_outputs") {
  for_each_device([](Device& device) {
    const int n = 2001;
    const std::vector<Particle> particles = random_particles(n, 23);
    TemporaryFolder folder("capture-tuning");
    run_step(runtime(), device, particles, folder.path);
    Capture capture = read_capture(folder.path / capture_file_name("test.record_step", Extent(std::size_t(n))));
    REQUIRE(capture.buffers.size() == 2);
    REQUIRE(capture.buffers[1].written);

    SUBCASE("an integer field one off in one record fails every configuration") {
      StepResult result;
      std::memcpy(&result, capture.buffers[1].output.data() + 77 * sizeof(StepResult), sizeof result);
      result.tag += 1;
      std::memcpy(capture.buffers[1].output.data() + 77 * sizeof(StepResult), &result, sizeof result);
      autotune::ResultsLog log(folder.path / "log.jsonl");
      autotune::TuneOptions options;
      options.strategy = "exhaustive";
      const autotune::TuningResult tuned =
          autotune::tune(runtime(), device, autotune::capture_target(capture), capture.problem, options, log);
      CHECK_FALSE(tuned.best);
      CHECK(tuned.outcomes.at(autotune::Outcome::wrong_result) == 16);
      REQUIRE(tuned.first_failures.count(autotune::Outcome::wrong_result) == 1);
      const std::string why = tuned.first_failures.at(autotune::Outcome::wrong_result);
      CHECK(why.find("results.tag") != std::string::npos);
      CHECK(why.find("element 77") != std::string::npos);
    }
    SUBCASE("a float field off by less than the tolerance passes, by more fails") {
      auto nudge = [&](float by) {
        Capture changed = capture;
        StepResult result;
        std::memcpy(&result, changed.buffers[1].output.data() + 5 * sizeof(StepResult), sizeof result);
        result.sum += by * (result.sum == 0 ? 1 : result.sum);
        std::memcpy(changed.buffers[1].output.data() + 5 * sizeof(StepResult), &result, sizeof result);
        return changed;
      };
      autotune::OutputCheck check;
      check.relative = check.absolute = 1e-3;
      for (const auto& [by, passes] : {std::pair{1e-5f, true}, std::pair{1e-2f, false}}) {
        CAPTURE(by);
        TemporaryFolder logs("capture-tuning-log");
        autotune::ResultsLog log(logs.path / "log.jsonl");
        autotune::TuneOptions options;
        options.strategy = "exhaustive";
        options.budget.evaluations = 3;
        const autotune::TuningResult tuned =
            autotune::tune(runtime(), device, autotune::capture_target(nudge(by), check), capture.problem, options, log);
        CHECK(tuned.best.has_value() == passes);
      }
    }
  });
}

}  // namespace alloy::test

namespace alloy::test {

TEST_CASE("Autotune.Capture.command_line_tunes_a_capture_and_refuses_a_bad_one") {
  for_each_device([](Device& device) {
    const auto& devices = runtime().devices();
    const std::size_t index = std::size_t(std::find(devices.begin(), devices.end(), &device) - devices.begin());
    const int n = 1001;
    TemporaryFolder folder("capture-command");
    run_step(runtime(), device, random_particles(n, 29), folder.path);
    const std::filesystem::path capture = folder.path / capture_file_name("test.record_step", Extent(std::size_t(n)));
    const std::filesystem::path profiles = folder.path / "profiles";
    auto autotune = [&](const std::filesystem::path& file) {
      const std::string command = std::string(build_paths::autotune_executable) + " --capture '" + file.string() + "' --device " +
                                  std::to_string(index) + " --strategy exhaustive --profile-dir '" +
                                  profiles.string() + "' --json > '" + (folder.path / "out.json").string() +
                                  "' 2> '" + (folder.path / "err.txt").string() + "'";
      const int status = std::system(command.c_str());
      REQUIRE(WIFEXITED(status));
      return WEXITSTATUS(status);
    };
    auto text_of = [](const std::filesystem::path& file) {
      std::ifstream in(file);
      return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };

    CHECK(autotune(capture) == 0);
    const std::string out = text_of(folder.path / "out.json");
    CHECK(out.find("test.record_step") != std::string::npos);
    CHECK(std::filesystem::exists(ProfileStore::file_for(profiles, device.info())));
    ProfiledRuntime profiled = runtime_with_profiles(profiles, device);
    CHECK(profiled.runtime->tuned(*profiled.device, record_step_kernel(), Extent(std::size_t(n))).choice.match ==
          ProfileMatch::device);

    const std::filesystem::path bad = folder.path / "bad.alloycap";
    std::ofstream(bad) << "not a capture";
    CHECK(autotune(bad) == 2);
    const std::string error = text_of(folder.path / "err.txt");
    CHECK(error.find("capture file " + bad.string()) != std::string::npos);
    CHECK(error.find("not an alloy capture file") != std::string::npos);
  });
}

}  // namespace alloy::test

namespace alloy::test {

TEST_CASE("Autotune.Capture.conversions_are_priced_unless_the_layouts_persist") {
  for_each_device([](Device& device) {
    const int n = 4001;
    TemporaryFolder folder("capture-pricing");
    run_step(runtime(), device, random_particles(n, 31), folder.path);
    const Capture capture = read_capture(folder.path / capture_file_name("test.record_step", Extent(std::size_t(n))));
    const autotune::TuningTarget target = autotune::capture_target(capture);
    REQUIRE(target.harness.buffers[1].overwritten);  // results: a write access
    // No layout of record_step matches the host's structs: every one converts.
    for (const bool persist : {false, true}) {
      CAPTURE(persist);
      autotune::MeasureOptions options;
      options.layouts_persist = persist;
      autotune::Evaluator evaluator(runtime(), device, target, capture.problem, options);
      for (const Configuration& configuration : every_configuration(target.kernel)) {
        const autotune::Measurement measurement = evaluator.measure(configuration);
        REQUIRE(measurement.outcome == autotune::Outcome::ok);
        CHECK(measurement.conversion_seconds > 0);
        if (!persist) CHECK(measurement.seconds >= measurement.conversion_seconds);
        // Only what the kernel reads and does not write may be staged.
        for (const std::string& staged : evaluator.staged_on_host(configuration)) CHECK(staged == "particles");
      }
    }
    // The profile keeps both the conversions' cost and whether it was priced.
    for (const bool persist : {false, true}) {
      autotune::ResultsLog log(folder.path / "log.jsonl");
      autotune::TuneOptions options;
      options.strategy = "exhaustive";
      options.measure.layouts_persist = persist;
      const autotune::TuningResult result = autotune::tune(runtime(), device, target, capture.problem, options, log);
      REQUIRE(result.best);
      CHECK(result.resumed == 0);  // measurements of the other pricing are not resumed
      CHECK(result.best_conversion_seconds > 0);
      const std::filesystem::path file =
          autotune::record_in_profile(folder.path / (persist ? "persist" : "priced"), device.info(), target, result, options);
      std::ifstream in(file);
      const ProfileParse parsed = parse_profile(std::string(std::istreambuf_iterator<char>(in), {}));
      REQUIRE(parsed.profile);
      REQUIRE(parsed.profile->entries.size() == 1);
      CHECK(parsed.profile->entries[0].conversion_seconds == result.best_conversion_seconds);
      CHECK(parsed.profile->entries[0].layouts_persist == persist);
      CHECK(parsed.profile->entries[0].staged_on_host == result.best_staged_on_host);
      MESSAGE("staged on the host by " << device.label() << ": "
                                       << (result.best_staged_on_host.empty() ? std::string("nothing") : "particles"));
    }
  });
}

}  // namespace alloy::test

namespace alloy::test {
namespace {

/// `description` with one randomly chosen value changed (a number to one of
/// the sizes that break bounds, a flag flipped, a text emptied or cut, a
/// member dropped); what it did goes to `what`.
std::string mutated(const std::string& description, std::mt19937_64& random, std::string& what) {
  nlohmann::json document = nlohmann::json::parse(description);
  const nlohmann::json flat = document.flatten();  // every value's place, empty containers' too
  std::vector<std::string> paths;
  std::vector<std::string> sizes;  // the problem, the launch and the scalars: half the changes go there
  for (const auto& [path, value] : flat.items()) {
    paths.push_back(path);
    if (path.starts_with("/problem") || path.starts_with("/range") || path.starts_with("/arguments")) sizes.push_back(path);
  }
  const std::vector<std::string>& among = random() % 2 == 0 ? sizes : paths;
  const nlohmann::json::json_pointer place(among[random() % among.size()]);
  nlohmann::json& value = document.at(place);
  if (random() % 16 == 0 && !place.empty()) {
    nlohmann::json& parent = document.at(place.parent_pointer());
    if (parent.is_array()) {
      parent.erase(std::stoul(place.back()));
    } else {
      parent.erase(place.back());
    }
    what = "dropped " + place.to_string();
  } else if (value.is_number()) {
    const std::uint64_t old = value.is_number_unsigned() ? value.get<std::uint64_t>() : 0;
    const std::uint64_t choices[] = {0, 1, old + 1, old - 1, old * 2, old * 64, (1ull << 31) - 1, 1ull << 32,
                                     1ull << 40, 1ull << 63, ~0ull, random() % 100000};
    value = choices[random() % std::size(choices)];
    what = place.to_string() + " = " + value.dump();
  } else if (value.is_boolean()) {
    value = !value.get<bool>();
    what = place.to_string() + " flipped";
  } else if (value.is_string()) {
    const std::string text = value.get<std::string>();
    value = random() % 2 == 0 ? std::string() : text.substr(0, random() % (text.size() + 1));
    what = place.to_string() + " cut to " + std::to_string(value.get<std::string>().size()) + " characters";
  } else {
    value = 1;
    what = place.to_string() + " = 1";
  }
  return document.dump();
}

}  // namespace

// Capture files with a valid checksum and one value changed at random, as a
// hostile or careless writer hands them in: each is refused by the reader
// (InvalidArgument naming the file) or tunes without crashing, every
// configuration's launch staying inside the captured data.
TEST_CASE("Autotune.Capture.mutated_descriptions_are_refused_or_tune_safely") {
  if (!have_devices(1)) return;
  Device& device = *selected_devices().front();  // what is refused does not depend on the device
  {
    const int n = 256;
    TemporaryFolder folder("capture-fuzz");
    run_step(runtime(), device, random_particles(n, 31), folder.path);
    const std::string bytes = bytes_of(folder.path / capture_file_name("test.record_step", Extent(std::size_t(n))));
    const std::string description = description_of(bytes);
    const std::uint64_t seed = random_seed();  // ALLOY_TEST_SEED replays a run
    // Said first, on stderr: a mutant that crashes the process ends it
    // before any later message.
    std::cerr << "Autotune.Capture fuzz: seed " << seed << " (replay with ALLOY_TEST_SEED=" << seed << ")\n";
    std::mt19937_64 random(seed);
    const std::filesystem::path file = folder.path / "mutated.alloycap";
    int refused = 0;
    int tuned = 0;
    for (int trial = 0; trial < 200; ++trial) {
      std::string what;
      put(file, with_description(bytes, mutated(description, random, what)));
      CAPTURE(trial);
      CAPTURE(what);
      std::optional<Capture> capture;
      try {
        capture = read_capture(file);
      } catch (const InvalidArgument& error) {
        CHECK(std::string(error.what()).find(file.string()) != std::string::npos);
        ++refused;
        continue;
      }
      autotune::ResultsLog log(folder.path / ("log" + std::to_string(trial) + ".jsonl"));
      autotune::TuneOptions options;
      options.strategy = "exhaustive";
      options.budget.evaluations = 1;
      try {
        autotune::tune(runtime(), device, autotune::capture_target(*capture), capture->problem, options, log);
      } catch (const Error&) {
        // Refused by the tuner (a kernel that does not compile, say): an error, not a crash.
      }
      ++tuned;
    }
    MESSAGE(refused << " mutated captures refused, " << tuned << " tuned without a crash (seed " << seed << ")");
    CHECK(refused > 0);
  }
}

}  // namespace alloy::test
