// Capture → tune → profile → run, end to end: a program's launch captured
// with its real data, tuned over its layouts on that data with every
// configuration checked against the captured outputs, and the profile then
// used by the same program without a change to it.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "alloy/autotune/capture_target.hpp"
#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/tuner.hpp"
#include "alloy/capture.hpp"
#include "alloy/executor.hpp"
#include "support/build_paths.hpp"
#include "support/layout_kernels.hpp"
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
