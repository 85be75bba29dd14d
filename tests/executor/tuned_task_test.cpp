// Tunable kernels in graphs: each device runs the configuration its profile
// chose, with no change to the program.
#include <filesystem>
#include <random>

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

struct ProfileFolder {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("alloy-tuned-task-" + std::to_string(std::random_device{}()));
  ~ProfileFolder() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("Executor.Tuning.graph_kernel_uses_device_profile") {
  for_each_device([](Device& device) {
    ProfileFolder folder;
    const Extent problem(1000);
    DeviceProfile profile = DeviceProfile::for_device(device.info());
    ProfileEntry entry;
    entry.kernel = marking_kernel().name;
    entry.source_hash = marking_kernel().source_hash();
    entry.problem = Extent(1024);  // not the size run: the nearest one serves
    entry.configuration = {{"MARK", 7}, {"GROUP", 32}};
    entry.seconds = 1e-5;
    profile.put(entry);
    write_profile(ProfileStore::file_for(folder.path, device.info()), profile);

    RuntimeOptions options;
    options.profiles = folder.path;
    options.cache_dir = runtime().program_cache().dir();
    Runtime tuned_runtime(options);
    Device* same = nullptr;
    for (Device* candidate : tuned_runtime.devices()) {
      if (candidate->label() == device.label()) same = candidate;
    }
    REQUIRE(same != nullptr);
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
    RuntimeOptions untuned_options;
    untuned_options.profiles = folder.path / "absent";
    untuned_options.cache_dir = runtime().program_cache().dir();
    Runtime untuned(untuned_options);
    for (Device* candidate : untuned.devices()) {
      if (candidate->label() == device.label()) same = candidate;
    }
    ExecutorOptions untuned_executor_options;
    untuned_executor_options.devices = {same};
    Executor untuned_executor(untuned, untuned_executor_options);
    untuned_executor.kernel(marking_kernel(), problem, {int(problem[0]), write(out.whole())});
    untuned_executor.synchronize(out);
    CHECK(std::count(out.host().begin(), out.host().end(), 1) == int(problem[0]));
    executor.wait();
    untuned_executor.wait();
  });
}

}  // namespace alloy::test
