// Tuning on real devices: failures classified and survived, a run killed with
// SIGKILL resumed from its log, a bad default improved and the profile then
// used by the runtime without code change.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "alloy/autotune/evaluator.hpp"
#include "alloy/autotune/host_load.hpp"
#include "alloy/autotune/tuner.hpp"
#include "embedded/tuning_faults_source.hpp"
#include "support/build_paths.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

extern char** environ;

namespace alloy::test {
namespace {

using autotune::Outcome;

constexpr std::size_t fault_items = 4096;

// scale_by_two: out = 2 × in, failing on purpose per MODE (see tuning_faults.cl).
// MODE=4 spins long enough (about a second) to pass the 0.25 s timeout on
// `device`: a GPU runs the 4096 work-items' chains in parallel, a CPU
// vectorizes them over a few cores.
autotune::TuningTarget fault_target(const Device& device) {
  const char* spin = computes_on_cpu(device) ? "-DSPIN=300000" : "-DSPIN=400000000";
  autotune::TuningTarget target;
  TunableKernel& kernel = target.kernel;
  kernel.name = "test.tuning_faults";
  kernel.source = {"tuning_faults.cl", std::string(alloy_kernels::tuning_faults_source), spin};
  kernel.kernel_name = "scale_by_two";
  kernel.parameters = {{"MODE", {0, 1, 2, 3, 4}, 0, {"right", "compile", "wrong", "refused", "slow"}},
                       {"WGS", {16, 32}, 16, {}}};
  kernel.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
  target.harness.buffers = {autotune::HarnessBuffer::input("in", {1, {}, {0}}),
                            autotune::HarnessBuffer::checked_output("out", {1, {}, {0}})};
  target.harness.arguments = {autotune::HarnessArgument::dimension(0),
                              autotune::HarnessArgument::buffer(0),
                              autotune::HarnessArgument::buffer(1)};
  target.harness.reference = [](const Extent&, const std::vector<autotune::HostArray>& buffers,
                                std::vector<autotune::HostArray>& expected) {
    const std::span<const float> in = buffers[0].view<float>();
    const std::span<float> out = expected[0].view<float>();
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = 2.0f * in[i];
  };
  target.default_problems = {Extent(fault_items)};
  return target;
}

std::vector<nlohmann::json> log_lines(const std::filesystem::path& file) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(file);
  std::string text;
  while (std::getline(in, text)) {
    const nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    if (!line.is_discarded()) lines.push_back(line);
  }
  return lines;
}

// The search's lines, or the confirmation's (those with a "round").
std::vector<nlohmann::json> log_lines(const std::filesystem::path& file, bool confirmation) {
  std::vector<nlohmann::json> lines = log_lines(file);
  std::erase_if(lines, [&](const nlohmann::json& line) { return line.contains("round") != confirmation; });
  return lines;
}

/// Every configuration of the fault target, in order, logged to `log_file`.
autotune::TuningResult tune_every_fault(Device& device, const std::filesystem::path& log_file,
                                        const autotune::MeasureOptions& measure) {
  autotune::ResultsLog log(log_file);
  autotune::TuneOptions options;
  options.strategy = "exhaustive";
  options.measure = measure;
  return autotune::tune(runtime(), device, fault_target(device), Extent(fault_items), options, log);
}

}  // namespace

TEST_CASE("Autotune.Evaluator.failures_are_classified_and_tuning_goes_on") {
  for_each_device([](Device& device) {
    TemporaryFolder folder;
    autotune::MeasureOptions measure;
    measure.timeout_seconds = 0.25;
    const autotune::TuningResult result = tune_every_fault(device, folder.path / "log.jsonl", measure);

    CHECK(result.space_size == 10);
    CHECK(result.evaluations == 10);
    CHECK(result.outcomes.at(Outcome::ok) == 2);
    CHECK(result.outcomes.at(Outcome::compile_error) == 2);
    CHECK(result.outcomes.at(Outcome::wrong_result) == 2);
    CHECK(result.outcomes.at(Outcome::launch_refused) == 2);
    CHECK(result.outcomes.at(Outcome::timeout) == 2);
    REQUIRE(result.best);
    CHECK((*result.best)[0] == 0);  // only MODE=0 is right
    CHECK(result.stopped_by == "strategy done");

    // Every measurement is in the log with its outcome and a reason.
    const std::vector<nlohmann::json> lines = log_lines(folder.path / "log.jsonl", false);
    REQUIRE(lines.size() == 10);
    for (const nlohmann::json& line : lines) {
      const std::int64_t mode = line["configuration"]["MODE"];
      const std::string outcome = line["outcome"];
      CAPTURE(line.dump());
      switch (mode) {
        case 0: CHECK(outcome == "ok"); break;
        case 1: CHECK(outcome == "compile_error"); CHECK_FALSE(line["detail"].get<std::string>().empty()); break;
        case 2: CHECK(outcome == "wrong_result"); CHECK(line["detail"].get<std::string>().find("element 2048") != std::string::npos); break;
        case 3: CHECK(outcome == "launch_refused"); break;
        default: CHECK(outcome == "timeout"); break;
      }
    }
    // Whatever the confirmation re-timed is in the log with its round, and
    // only right configurations were re-timed.
    const std::vector<nlohmann::json> rounds = log_lines(folder.path / "log.jsonl", true);
    CHECK(rounds.size() >= 2 * std::size_t(std::min(result.confirmation_rounds, 5u)));
    for (const nlohmann::json& line : rounds) {
      CAPTURE(line.dump());
      CHECK(line["configuration"]["MODE"] == 0);
      CHECK(line["round"].get<unsigned>() >= 1);
      CHECK(line["round"].get<unsigned>() <= result.confirmation_rounds);
    }

    // Outside the space: refused before any compiler sees it.
    const autotune::TuningTarget target = fault_target(device);
    autotune::Evaluator evaluator(runtime(), device, target, Extent(fault_items));
    CHECK(evaluator.measure({0, 24}).outcome == Outcome::invalid);
    CHECK(evaluator.measure({0, 32}).outcome == Outcome::ok);
    check_saxpy_works(device);
  });
}

TEST_CASE("Autotune.Evaluator.a_slow_candidate_is_cut_by_the_limit_scaled_from_the_best") {
  for_each_device([](Device& device) {
    // MODE=4 spins for about a second, far under the 10 s --timeout, but
    // five times the best so far (a few milliseconds, at least 0.2 s) is less.
    TemporaryFolder folder;
    autotune::MeasureOptions measure;
    measure.timeout_over_best = 5;
    const autotune::TuningResult result = tune_every_fault(device, folder.path / "log.jsonl", measure);
    CHECK(result.outcomes.at(Outcome::timeout) == 2);
    for (const nlohmann::json& line : log_lines(folder.path / "log.jsonl", false)) {
      if (line["configuration"]["MODE"] != 4) continue;
      CHECK(line["outcome"] == "timeout");
      CHECK(line["detail"].get<std::string>().find("the limit scaled from the best time so far") !=
            std::string::npos);
    }
  });
}

TEST_CASE("Autotune.Evaluator.default_is_reference_without_host_function") {
  for_each_device([](Device& device) {
    autotune::TuningTarget target = fault_target(device);
    target.harness.reference = nullptr;
    autotune::Evaluator evaluator(runtime(), device, target, Extent(fault_items));
    CHECK(evaluator.measure({0, 32}).outcome == Outcome::ok);
    CHECK(evaluator.measure({2, 32}).outcome == Outcome::wrong_result);
    // A default that fails cannot be a reference: a clear error, not a crash.
    target.kernel.parameters[0].default_value = 1;
    autotune::Evaluator broken(runtime(), device, target, Extent(fault_items));
    CHECK_THROWS_AS(broken.measure({0, 32}), Error);
  });
}

TEST_CASE("Autotune.Tuner.improves_bad_default_and_runtime_uses_profile") {
  for_each_device([](Device& device) {
    // alloy.triad with a deliberately poor default work-group size.
    autotune::TuningTarget target;
    for (const autotune::TuningTarget& builtin : autotune::builtin_targets()) {
      if (builtin.kernel.name == "alloy.triad") target = builtin;
    }
    REQUIRE(target.kernel.name == "alloy.triad");
    target.kernel.parameters[0].default_value = 8;  // WGS
    const Extent problem(1 << 22);
    TemporaryFolder folder;
    autotune::ResultsLog log(folder.path / "log.jsonl");
    autotune::TuneOptions options;
    options.strategy = "exhaustive";
    const autotune::TuningResult result = autotune::tune(runtime(), device, target, problem, options, log);
    REQUIRE(result.best);
    REQUIRE(result.default_seconds);
    MESSAGE("triad default " << *result.default_seconds * 1e3 << " ms, tuned "
                             << *result.best_seconds * 1e3 << " ms on " << device.label());
    CHECK(*result.best != target.kernel.default_configuration());
    CHECK(*result.best_seconds < *result.default_seconds);

    const std::filesystem::path file =
        autotune::record_in_profile(folder.path, device.info(), target, result, options);
    CHECK(file == ProfileStore::file_for(folder.path, device.info()));
    // A program pointing at the folder now launches the tuned configuration.
    ProfiledRuntime profiled = runtime_with_profiles(folder.path, device);
    Device* same = profiled.device;
    const TunedKernel tuned = profiled.runtime->tuned(*same, target.kernel, problem);
    CHECK(tuned.choice.match == ProfileMatch::device);
    CHECK(tuned.choice.configuration == *result.best);
    ProfiledRuntime untuned = runtime_with_profiles(folder.path / "none", device);
    CHECK(untuned.runtime->tuned(*untuned.device, target.kernel, problem).choice.match ==
          ProfileMatch::defaults);

    // And it computes the right thing: a = b + 3c.
    const std::size_t n = problem[0];
    std::vector<float> b(n), c(n);
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = float(i % 97);
      c[i] = float(i % 13);
    }
    auto queue = same->create_queue();
    auto a_buffer = same->allocate(n * sizeof(float));
    auto b_buffer = upload(*same, *queue, b);
    auto c_buffer = upload(*same, *queue, c);
    queue->launch(*tuned.kernel, tuned.range, int(n), 3.0f, *a_buffer, *b_buffer, *c_buffer);
    std::vector<float> a(n);
    queue->read(*a_buffer, 0, a.data(), n * sizeof(float));
    queue->finish();
    for (std::size_t i = 0; i < n; i += 4093) REQUIRE(a[i] == b[i] + 3.0f * c[i]);
  });
}

TEST_CASE("Autotune.Tuner.starting_points_follow_the_default") {
  for_each_device([](Device& device) {
    const autotune::TuningTarget& triad = [] () -> const autotune::TuningTarget& {
      for (const autotune::TuningTarget& builtin : autotune::builtin_targets()) {
        if (builtin.kernel.name == "alloy.triad") return builtin;
      }
      throw Error("no alloy.triad");
    }();
    TemporaryFolder folder;
    autotune::ResultsLog log(folder.path / "log.jsonl");
    autotune::TuneOptions options;
    options.strategy = "random";
    options.budget.evaluations = 3;
    options.starting_points = {{99, 1}, {256, 2}};  // WGS=99 is not in the space: skipped
    const autotune::TuningResult result = autotune::tune(runtime(), device, triad, Extent(1 << 16), options, log);
    CHECK(result.evaluations == 3);
    const std::vector<nlohmann::json> lines = log_lines(folder.path / "log.jsonl", false);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0]["configuration"]["WGS"] == triad.kernel.default_configuration()[0]);
    CHECK(lines[1]["configuration"]["WGS"] == 256);
    CHECK(lines[1]["configuration"]["WPT"] == 2);
  });
}

/// Starts the `autotune` binary with `arguments`, its stdout and stderr
/// going to the files named.
pid_t spawn_autotune(std::vector<std::string> arguments, const std::filesystem::path& output,
                     const std::filesystem::path& errors, std::vector<std::string> environment = {}) {
  arguments.insert(arguments.begin(), build_paths::autotune_executable);
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());  // first: they win
  for (char** variable = environ; *variable != nullptr; ++variable) envp.push_back(*variable);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// What a finished `autotune` run said and how it ended.
struct CommandRun {
  int status = -1;
  std::string output;
  std::string errors;
};

CommandRun run_autotune(const std::vector<std::string>& arguments, const std::filesystem::path& folder,
                        const std::vector<std::string>& environment = {}) {
  const pid_t pid = spawn_autotune(arguments, folder / "stdout.txt", folder / "stderr.txt", environment);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), read_text(folder / "stdout.txt"), read_text(folder / "stderr.txt")};
}

/// The first selected device's index in the runtime's list, as --device
/// takes it (a backend name could select several devices); nothing, after
/// a skip, when the command cannot be aimed at one.
std::optional<std::string> command_device() {
  if (selected_backend().empty()) {
    skip("needs --alloy-backend to pick the device for the command");
    return std::nullopt;
  }
  if (selected_devices().empty()) {
    skip("no " + selected_backend() + " device");
    return std::nullopt;
  }
  const auto& all = runtime().devices();
  return std::to_string(std::find(all.begin(), all.end(), selected_devices()[0]) - all.begin());
}

TEST_CASE("Autotune.Command.resumes_after_kill_9") {
  const std::optional<std::string> device_index = command_device();
  if (!device_index) return;
  TemporaryFolder folder;
  const std::string log = (folder.path / "log.jsonl").string();
  const std::string profiles = (folder.path / "profiles").string();
  auto spawn = [&]() {
    return spawn_autotune({"--kernel", "alloy.triad", "--size", "1048576", "--device", *device_index,
                           "--strategy", "random", "--budget-evaluations", "24", "--budget-seconds", "0",
                           "--budget-fraction", "0", "--budget-stall", "0", "--serial-compile", "--log",
                           log, "--profile-dir", profiles, "--json"},
                          folder.path / "stdout.json", folder.path / "stderr.txt");
  };

  // First run: killed with SIGKILL once a few measurements are logged.
  const pid_t first = spawn();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (log_lines(log, false).size() < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(first, SIGKILL);
  int status = 0;
  ::waitpid(first, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const std::size_t logged_before = log_lines(log, false).size();
  REQUIRE(logged_before >= 5);
  REQUIRE(logged_before < 24);
  // A torn line, as a kill in the middle of a write would leave.
  std::ofstream(log, std::ios::app) << R"({"kernel": "alloy.triad", "source_ha)";

  // Second run: resumes, measures only what is missing, ends at the budget.
  const pid_t second = spawn();
  ::waitpid(second, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::ifstream output(folder.path / "stdout.json");
  const nlohmann::json report = nlohmann::json::parse(output);
  const nlohmann::json& result = report["results"][0];
  CHECK(result["evaluations"] == 24);
  CHECK(result["resumed"] == logged_before);
  const std::vector<nlohmann::json> lines = log_lines(log, false);
  CHECK(lines.size() == 24);
  std::set<std::string> configurations;
  for (const nlohmann::json& line : lines) configurations.insert(line["configuration"].dump());
  CHECK(configurations.size() == 24);  // nothing measured twice
  CHECK(std::filesystem::exists(profiles));
}

TEST_CASE("Autotune.Command.dry_run_writes_nothing") {
  const std::optional<std::string> device_index = command_device();
  if (!device_index) return;
  TemporaryFolder folder;
  const std::filesystem::path log = folder.path / "log.jsonl";
  const std::filesystem::path profiles = folder.path / "profiles";
  auto arguments = [&](const std::string& evaluations, bool dry) {
    std::vector<std::string> list = {"--kernel", "alloy.triad", "--size", "65536", "--device", *device_index,
                                     "--strategy", "random", "--budget-evaluations", evaluations,
                                     "--log", log.string(), "--profile-dir", profiles.string(), "--json"};
    if (dry) list.push_back("--dry-run");
    return list;
  };
  // Nothing there: a dry run creates neither the log nor the profile folder.
  CommandRun run = run_autotune(arguments("3", true), folder.path);
  INFO(run.errors);
  CHECK(run.status == 0);
  CHECK(nlohmann::json::parse(run.output)["results"][0]["evaluations"] == 3);
  CHECK(!std::filesystem::exists(log));
  CHECK(!std::filesystem::exists(profiles));
  // A log from a real run: a dry run resumes from it and leaves it as it was.
  REQUIRE(run_autotune(arguments("3", false), folder.path).status == 0);
  const std::string logged = read_text(log);
  REQUIRE(std::filesystem::exists(profiles));
  std::filesystem::remove_all(profiles);
  run = run_autotune(arguments("5", true), folder.path);
  CHECK(run.status == 0);
  const nlohmann::json result = nlohmann::json::parse(run.output)["results"][0];
  CHECK(result["evaluations"] == 5);
  CHECK(result["resumed"] == 3);
  CHECK(read_text(log) == logged);
  CHECK(!std::filesystem::exists(profiles));
}

/// Processes that keep every core of the machine busy until they go.
struct BusyProcesses {
  std::vector<pid_t> children;
  BusyProcesses() {
    const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    for (long i = 0; i < cores; ++i) {
      const pid_t child = ::fork();
      if (child == 0) {
        volatile std::uint64_t spin = 0;
        for (;;) spin = spin + 1;
      }
      if (child > 0) children.push_back(child);
    }
  }
  ~BusyProcesses() {
    for (const pid_t child : children) ::kill(child, SIGKILL);
    for (const pid_t child : children) ::waitpid(child, nullptr, 0);
  }
};

TEST_CASE("Autotune.Command.a_busy_machine_is_named_before_and_after_measuring") {
  const std::optional<std::string> device_index = command_device();
  if (!device_index) return;
  if (selected_devices()[0]->info().type != DeviceType::cpu) {
    skip("the warning before measuring is for CPU devices, which share the cores with the load");
    return;
  }
  TemporaryFolder folder;
  CommandRun run;
  {
    const BusyProcesses load;  // a process per core, spinning
    run = run_autotune({"--kernel", "alloy.triad", "--size", "65536", "--device", *device_index, "--strategy",
                        "random", "--budget-evaluations", "2", "--log", (folder.path / "log.jsonl").string(),
                        "--profile-dir", (folder.path / "profiles").string(), "--json"},
                       folder.path);
  }
  INFO(run.output, run.errors);
  CHECK(run.status == 0);
  CHECK(run.errors.find("autotune: other processes are using ") != std::string::npos);
  const nlohmann::json result = nlohmann::json::parse(run.output)["results"][0];
  REQUIRE(result["host_others_share"].is_number());
  CHECK(result["host_others_share"].get<double>() > autotune::busy_host_share);
}

TEST_CASE("Autotune.Command.compiler_output_goes_to_a_file_not_the_terminal") {
  const std::optional<std::string> device_index = command_device();
  if (!device_index) return;
  TemporaryFolder folder;
  // A kernel every configuration of which compiles with a warning.
  std::ofstream(folder.path / "warns.cl") << "#ifndef WGS\n#define WGS 64\n#endif\n"
                                             "KERNEL void warns(const int n, GLOBAL float* data) {\n"
                                             "  const int i = (int)get_global_id(0);\n"
                                             "  int truncated = 1.5f;\n"
                                             "  if (i < n) data[i] += 1.0f;\n"
                                             "}\n";
  std::ofstream(folder.path / "warns.json") << R"({"kernels": [{
    "name": "test.warns", "source_file": "warns.cl", "kernel": "warns",
    "parameters": [{"name": "WGS", "values": [16, 32, 64], "default": 64}],
    "launch": [{"problem_dimension": 0, "local": "WGS"}],
    "harness": {"buffers": [{"name": "data", "elements": "$0", "output": true}],
                "arguments": [{"problem_dimension": 0}, {"buffer": 0}]},
    "problems": [[4096]]}]})";
  const std::filesystem::path log = folder.path / "log.jsonl";
  // PoCL's compiler runs (and prints) only for kernels not in its cache.
  const CommandRun run = run_autotune({"--manifest", (folder.path / "warns.json").string(), "--kernel",
                                       "test.warns", "--device", *device_index, "--log", log.string(),
                                       "--profile-dir", (folder.path / "profiles").string()},
                                      folder.path, {"POCL_CACHE_DIR=" + (folder.path / "pocl").string()});
  INFO(run.output, run.errors);
  CHECK(run.status == 0);
  CHECK(run.errors.find("generated") == std::string::npos);
  const std::filesystem::path captured = folder.path / "log.compiler-output.txt";
  const Device& device = *selected_devices()[0];
  // PoCL's CPU devices ("pthread-<cpu>") print "1 warning generated." per
  // build; other drivers keep their warnings in the build log.
  if (device.info().backend == "opencl" && device.info().name.rfind("pthread", 0) == 0) {
    REQUIRE(std::filesystem::exists(captured));
  }
  if (std::filesystem::exists(captured)) {
    const std::string text = read_text(captured);
    CHECK(text.rfind("== test.warns 4096 on ", 0) == 0);
    CHECK(text.find("warning") != std::string::npos);
    CHECK(run.errors.find("they are in " + captured.string()) != std::string::npos);
  } else {
    MESSAGE("this device's compiler printed nothing to stderr");
    CHECK(run.errors.find("the compiler printed") == std::string::npos);
  }
}

TEST_CASE("Autotune.Command.says_why_nothing_was_found") {
  const std::optional<std::string> device_index = command_device();
  if (!device_index) return;
  TemporaryFolder folder;
  // A kernel without bounds checks: its block must divide the problem, and
  // no block size divides 100.
  std::ofstream(folder.path / "blocks.cl") << "#ifndef BLOCK\n#define BLOCK 16\n#endif\n"
                                              "KERNEL void blocks(GLOBAL float* data) {\n"
                                              "  data[get_global_id(0)] += 1.0f;\n"
                                              "}\n";
  std::ofstream(folder.path / "blocks.json") << R"({"kernels": [{
    "name": "test.blocks", "source_file": "blocks.cl", "kernel": "blocks",
    "parameters": [{"name": "BLOCK", "values": [16, 32], "default": 16}],
    "constraints": [{"kind": "divides", "left": "BLOCK", "right": "$0"}],
    "launch": [{"problem_dimension": 0, "local": "BLOCK"}],
    "harness": {"buffers": [{"name": "data", "elements": "$0", "output": true}],
                "arguments": [{"buffer": 0}]},
    "problems": [[4096]]}]})";
  const CommandRun run = run_autotune({"--manifest", (folder.path / "blocks.json").string(), "--kernel",
                                       "test.blocks", "--size", "100", "--device", *device_index, "--log",
                                       (folder.path / "log.jsonl").string(), "--profile-dir",
                                       (folder.path / "profiles").string()},
                                      folder.path);
  INFO(run.output, run.errors);
  CHECK(run.status == 1);
  // Without a host reference the default is the reference: its failure,
  // with the constraint it breaks, is the reason.
  CHECK(run.output.find("the default configuration, which is the reference, failed") != std::string::npos);
  CHECK(run.output.find("invalid: breaks BLOCK divides problem[0] (here 16 and 100)") != std::string::npos);
}

}  // namespace alloy::test
