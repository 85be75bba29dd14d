// Tunable kernels in graphs: each device runs the configuration its profile
// chose, with no change to the program.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

// Writes its MARK define into every element, so the output shows which
// configuration ran; the work-group size follows GROUP.
const TunableKernel& marking_kernel() {
  static const TunableKernel kernel = [] {
    TunableKernel k;
    k.name = "test.marking";
    k.source = {"marking.cl",
                "#ifndef MARK\n#define MARK 1\n#endif\n"
                "#if MARK == 9\n#error nine does not build\n#endif\n"
                "KERNEL void mark(const int n, GLOBAL int* restrict out) {\n"
                "  const int i = (int)get_global_id(0);\n"
                "  if (i < n) out[i] = MARK;\n"
                "}\n",
                ""};
    k.kernel_name = "mark";
    k.parameters = {{"MARK", {1, 7, 9}, 1, {}}, {"GROUP", {16, 32}, 16, {}}};
    k.launch = {{0, {}, {}, {1, {"GROUP"}, {}}}};
    return k;
  }();
  return kernel;
}

/// Writes `device`'s profile into `folder` with one entry of the marking
/// kernel: `configuration` at `problem`, measured at `seconds`.
void write_marking_entry(const std::filesystem::path& folder, const Device& device, const Extent& problem,
                         std::map<std::string, std::int64_t> configuration, double seconds) {
  DeviceProfile profile = DeviceProfile::for_device(device.info());
  ProfileEntry entry;
  entry.kernel = marking_kernel().name;
  entry.source_hash = marking_kernel().source_hash();
  entry.problem = problem;
  entry.configuration = std::move(configuration);
  entry.seconds = seconds;
  profile.put(entry);
  write_profile(ProfileStore::file_for(folder, device.info()), profile);
}

}  // namespace

TEST_CASE("Executor.Tuning.graph_kernel_uses_device_profile") {
  for_each_device([](Device& device) {
    TemporaryFolder folder("tuned-task");
    const Extent problem(1000);
    // Not the size run: the nearest one serves.
    write_marking_entry(folder.path, device, Extent(1024), {{"MARK", 7}, {"GROUP", 32}}, 1e-5);

    ProfiledRuntime tuned = runtime_with_profiles(folder.path, device);
    Runtime& tuned_runtime = *tuned.runtime;
    Device* same = tuned.device;
    CHECK(tuned_runtime.tuned(*same, marking_kernel(), problem).range.local->size[0] == 32);

    Buffer<int> out(problem[0]);
    Graph graph;
    graph.kernel(marking_kernel(), problem, {int(problem[0]), write(out.whole())});
    ExecutorOptions executor_options;
    executor_options.devices = {same};
    Executor executor(tuned_runtime, executor_options);
    executor.run(graph);
    executor.synchronize(out);
    CHECK(std::count(out.host().begin(), out.host().end(), 7) == int(problem[0]));

    // Without a profile the same program runs the kernel's defaults.
    ProfiledRuntime untuned = runtime_with_profiles(folder.path / "absent", device);
    ExecutorOptions untuned_executor_options;
    untuned_executor_options.devices = {untuned.device};
    Executor untuned_executor(*untuned.runtime, untuned_executor_options);
    untuned_executor.kernel(marking_kernel(), problem, {int(problem[0]), write(out.whole())});
    untuned_executor.synchronize(out);
    CHECK(std::count(out.host().begin(), out.host().end(), 1) == int(problem[0]));
    executor.wait();
    untuned_executor.wait();
  });
}

TEST_CASE("Executor.Tuning.executor_tuned_is_the_record_its_tasks_run") {
  for_each_device([](Device& device) {
    TemporaryFolder folder("tuned-task");
    const Extent problem(1000);
    write_marking_entry(folder.path, device, problem, {{"MARK", 7}, {"GROUP", 32}}, 2e-5);
    ProfiledRuntime profiled = runtime_with_profiles(folder.path, device);
    ExecutorOptions options;
    options.devices = {profiled.device};
    options.trace = true;
    Executor executor(*profiled.runtime, options);

    const TunedKernel tuned = executor.tuned(0, marking_kernel(), problem);
    CHECK(tuned.choice.match == ProfileMatch::device);
    CHECK(describe(marking_kernel(), tuned.choice.configuration) == "MARK=7 GROUP=32");
    REQUIRE(tuned.choice.seconds);
    CHECK(*tuned.choice.seconds == doctest::Approx(2e-5));
    CHECK_THROWS_AS(executor.tuned(1, marking_kernel(), problem), InvalidArgument);

    // A task of that kernel and problem runs that configuration, and the
    // trace names it.
    Buffer<int> out(problem[0]);
    executor.kernel(marking_kernel(), problem, {int(problem[0]), write(out.whole())});
    executor.synchronize(out);
    CHECK(std::count(out.host().begin(), out.host().end(), 7) == int(problem[0]));
    const Trace trace = executor.trace();
    const auto launch = std::find_if(trace.slices.begin(), trace.slices.end(),
                                     [](const TraceSlice& slice) { return slice.kernel == "mark"; });
    REQUIRE(launch != trace.slices.end());
    CHECK(launch->configuration == "MARK=7 GROUP=32");
    CHECK(launch->profile_match == "device");
  });
}

TEST_CASE("Executor.Tuning.entry_that_does_not_build_falls_back_to_defaults") {
  for_each_device([](Device& device) {
    TemporaryFolder folder("tuned-task");
    // Valid in the space, but does not build.
    write_marking_entry(folder.path, device, Extent(1000), {{"MARK", 9}, {"GROUP", 32}}, 0);
    ProfiledRuntime profiled = runtime_with_profiles(folder.path, device);
    std::vector<std::string> warnings;
    const LogSink previous = set_log_sink([&](LogLevel level, std::string_view message) {
      if (level == LogLevel::warning) warnings.emplace_back(message);
    });
    const TunedKernel tuned = profiled.runtime->tuned(*profiled.device, marking_kernel(), Extent(1000));
    set_log_sink(previous);
    CHECK(tuned.choice.match == ProfileMatch::defaults);
    CHECK(tuned.choice.configuration == marking_kernel().default_configuration());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("does not work on") != std::string::npos);
  });
}

TEST_CASE("Executor.Tuning.problem_the_configuration_does_not_fit_is_refused") {
  for_each_device([](Device& device) {
    // As if the kernel had no bounds checks: its group must divide the
    // problem, and neither 16 nor 32 divides 1000.
    TunableKernel blocked = marking_kernel();
    blocked.name = "test.marking.blocked";
    blocked.constraints = {{TuningConstraint::Kind::divides, {1, {"GROUP"}, {}}, {1, {}, {0}}}};
    try {
      runtime().tuned(device, blocked, Extent(1000));
      FAIL("a problem of 1000 was accepted");
    } catch (const InvalidArgument& error) {
      CHECK(std::string(error.what()).find("does not fit problem 1000") != std::string::npos);
    }
    // As a graph task, the task fails with that error and the executor goes on.
    Buffer<int> out(1000);
    ExecutorOptions options;
    options.devices = {&device};
    Executor executor(runtime(), options);
    executor.kernel(blocked, Extent(1000), {1000, write(out.whole())});
    CHECK_THROWS_WITH_AS(executor.wait(), doctest::Contains("does not fit problem"), Error);
    check_saxpy_works(device);
  });
}

}  // namespace alloy::test
