// The first run of a program placed from the tuning profiles: a device whose
// profile has the kernel is expected to take the tuned time, one without is
// taken to be average, so both get work at once, in proportion to what the
// profiles say. One OpenCL device and one emulated device (another kind, so
// another profile) run it; the emulated device computes by a host model.

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "alloy/emulated_kernels.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

constexpr int length = 1000;

const TunableKernel& triple_kernel() {
  static const TunableKernel kernel = [] {
    TunableKernel k;
    k.name = "test.seeded_triple";
    k.source = {"seeded_triple.cl",
                "#if BREAKS_THE_BUILD\n"
                "#error a configuration that does not build\n"
                "#endif\n"
                "KERNEL void seeded_triple(const int n, GLOBAL const int* restrict in, GLOBAL int* restrict out) {\n"
                "  const int i = (int)get_global_id(0);\n"
                "  if (i < n) out[i] = 3 * in[i];\n"
                "}\n",
                ""};
    k.kernel_name = "seeded_triple";
    k.parameters = {{"GROUP", {16, 32}, 16, {}}, {"BREAKS_THE_BUILD", {0, 1}, 0, {}}};
    k.launch = {{0, {}, {}, {1, {"GROUP"}, {}}}};
    return k;
  }();
  return kernel;
}

void define_triple_on_emulated_devices() {
  emulation::KernelModel model;
  model.run = [](const emulation::KernelLaunch& launch) {
    const int n = launch.scalar<int>(0);
    const int* in = launch.pointer<int>(1);
    int* out = launch.pointer<int>(2);
    for (int i = 0; i < n; ++i) out[i] = 3 * in[i];
  };
  model.seconds = [](const emulation::KernelLaunch&) { return 1e-4; };
  emulation::define_kernel("seeded_triple", model);
}

Device* first_of_backend(const std::string& backend) {
  for (Device* device : runtime().devices()) {
    if (device->info().backend == backend) return device;
  }
  return nullptr;
}

/// An entry for `device` that says the kernel takes `seconds`; one that
/// `breaks_the_build` names a configuration that does not compile.
void write_tuned_time(const std::filesystem::path& folder, const Device& device, double seconds,
                      bool breaks_the_build = false) {
  DeviceProfile profile = DeviceProfile::for_device(device.info());
  ProfileEntry entry;
  entry.kernel = triple_kernel().name;
  entry.source_hash = triple_kernel().source_hash();
  entry.problem = Extent(length);
  entry.configuration = {{"GROUP", 32}, {"BREAKS_THE_BUILD", breaks_the_build ? 1 : 0}};
  entry.seconds = seconds;
  profile.put(entry);
  write_profile(ProfileStore::file_for(folder, device.info()), profile);
}

/// Runs `tasks` independent triples on the OpenCL device (0) and the
/// emulated device (1), placed by earliest finish time from the profiles in
/// `folder` alone (deterministic: nothing measured), checks every result
/// exactly, and returns how many tasks each device ran.
std::vector<std::size_t> first_run(const std::filesystem::path& folder, Device& opencl, Device& emulated,
                                   int tasks) {
  ProfiledRuntime tuned = runtime_with_profiles(folder, opencl);
  // Every Runtime of a process lists its devices in one order.
  const auto& shared = runtime().devices();
  Device* emulated_device = tuned.runtime->devices().at(
      static_cast<std::size_t>(std::find(shared.begin(), shared.end(), &emulated) - shared.begin()));
  ExecutorOptions options;
  options.devices = {tuned.device, emulated_device};
  options.policy = SchedulingPolicy::earliest_finish_time;
  options.deterministic = true;
  Executor executor(*tuned.runtime, options);

  std::vector<Buffer<int>> inputs, outputs;
  Graph graph;
  for (int t = 0; t < tasks; ++t) {
    std::vector<int> values(length);
    for (int i = 0; i < length; ++i) values[i] = t * length + i;
    inputs.emplace_back(std::span<const int>(values));
    outputs.emplace_back(length);
  }
  for (int t = 0; t < tasks; ++t) {
    graph.kernel(triple_kernel(), Extent(length), {length, read(inputs[t]), write(outputs[t])});
  }
  executor.run(graph);
  for (int t = 0; t < tasks; ++t) {
    executor.synchronize(outputs[t]);
    for (int i = 0; i < length; ++i) REQUIRE(outputs[t].host()[i] == 3 * (t * length + i));
  }
  executor.wait();
  return executor.tasks_per_device();
}

/// Every task ran, and each device ran half of them (one more, for an odd count).
void check_split_evenly(const std::vector<std::size_t>& counts, int tasks) {
  CAPTURE(counts[0]);
  CAPTURE(counts[1]);
  CHECK(counts[0] + counts[1] == std::size_t(tasks));
  CHECK(std::max(counts[0], counts[1]) - std::min(counts[0], counts[1]) <= 1);
}

}  // namespace

TEST_CASE("Executor.SeededPlacement.tuned_and_untuned_devices_share_the_first_run") {
  Device* opencl = first_of_backend("opencl");
  Device* emulated = first_of_backend("emulated");
  if (!opencl || !emulated) {
    skip("needs an OpenCL device and an emulated one (ALLOY_EMULATED_DEVICES)");
    return;
  }
  define_triple_on_emulated_devices();
  const int tasks = 16;

  SUBCASE("both tuned: the tasks split as the tuned times say") {
    TemporaryFolder folder("seeded-placement");
    write_tuned_time(folder.path, *opencl, 1e-3);
    write_tuned_time(folder.path, *emulated, 3e-3);
    const std::vector<std::size_t> counts = first_run(folder.path, *opencl, *emulated, tasks);
    CAPTURE(counts[0]);
    CAPTURE(counts[1]);
    CHECK(counts[0] + counts[1] == tasks);
    CHECK(counts[1] >= 3);                   // the slower device still gets its share
    CHECK(counts[0] >= 2.5 * double(counts[1]));  // about three times the faster one's
  }
  SUBCASE("the slower one tuned only: the other is taken to be as fast") {
    TemporaryFolder folder("seeded-placement");
    write_tuned_time(folder.path, *emulated, 3e-3);
    check_split_evenly(first_run(folder.path, *opencl, *emulated, tasks), tasks);
  }
  SUBCASE("an entry that does not build gives no time: its device is taken to be average") {
    // The OpenCL entry claims three times the emulated device's speed, but
    // its configuration does not compile: the defaults run there, and
    // placement seeds nothing from the entry.
    TemporaryFolder folder("seeded-placement");
    write_tuned_time(folder.path, *opencl, 1e-3, true);
    write_tuned_time(folder.path, *emulated, 3e-3);
    check_split_evenly(first_run(folder.path, *opencl, *emulated, tasks), tasks);
  }
  SUBCASE("neither tuned: the work is spread") {
    TemporaryFolder folder("seeded-placement");
    check_split_evenly(first_run(folder.path, *opencl, *emulated, tasks), tasks);
  }
}

}  // namespace alloy::test
