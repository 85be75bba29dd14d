// Uses an installed alloy: finds the installed plugins and runs a kernel on
// every device. With --tuned, runs the consumer's own tunable kernel with the
// configuration that consumer_autotune wrote to $ALLOY_PROFILE_DIR.
#include <cstdio>
#include <string_view>
#include <vector>

#include <alloy/alloy.hpp>

#include "add_one_kernel.hpp"

namespace {

/// Adds one to 4096 ints on `device` with `kernel`; false on a wrong value.
bool adds_one(alloy::Device& device, alloy::Kernel& kernel, const alloy::LaunchRange& range) {
  const int n = 4096;
  std::vector<int> values(n, 41);
  auto queue = device.create_queue();
  auto buffer = device.allocate(n * sizeof(int));
  queue->write(*buffer, 0, values.data(), n * sizeof(int));
  queue->launch(kernel, range, n, *buffer);
  queue->read(*buffer, 0, values.data(), n * sizeof(int));
  queue->finish();
  for (int value : values) {
    if (value != 42) {
      std::fprintf(stderr, "%s: wrong result %d\n", device.label().c_str(), value);
      return false;
    }
  }
  return true;
}

/// Every device runs the tuned kernel with its own profile's configuration.
int run_tuned(alloy::Runtime& runtime) {
  if (runtime.devices().empty()) {
    std::fprintf(stderr, "no device to run the tuned kernel on\n");
    return 1;
  }
  for (alloy::Device* device : runtime.devices()) {
    const alloy::TunedKernel tuned = runtime.tuned(*device, add_one_kernel(), alloy::Extent(4096));
    std::printf("%s: %s, profile %s (%s)\n", device->label().c_str(),
                alloy::describe(add_one_kernel(), tuned.choice.configuration).c_str(),
                std::string(alloy::to_string(tuned.choice.match)).c_str(), tuned.choice.file.c_str());
    if (tuned.choice.match != alloy::ProfileMatch::device) {
      std::fprintf(stderr, "%s: the profile consumer_autotune wrote was not used\n",
                   device->label().c_str());
      return 1;
    }
    if (!adds_one(*device, *tuned.kernel, tuned.range)) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  alloy::Runtime runtime;
  // Every plugin built must have been found in the install tree.
  for (const alloy::BackendStatus& backend : runtime.backends()) {
    std::printf("%s: %s %s\n", backend.name.c_str(), backend.library.c_str(),
                backend.reason.c_str());
    if (backend.name == "opencl" && backend.library.empty()) {
      std::fprintf(stderr, "the installed OpenCL plugin was not found\n");
      return 1;
    }
  }
  if (argc > 1 && std::string_view(argv[1]) == "--tuned") return run_tuned(runtime);
  const char* source = "KERNEL void add_one(const int n, GLOBAL int* v) {\n"
                       "  const int i = (int)get_global_id(0);\n"
                       "  if (i < n) v[i] += 1;\n"
                       "}\n";
  for (alloy::Device* device : runtime.devices()) {
    const int n = 256;
    std::vector<int> values(n, 41);
    auto queue = device->create_queue();
    auto buffer = device->allocate(n * sizeof(int));
    queue->write(*buffer, 0, values.data(), n * sizeof(int));
    auto kernel = runtime.program(*device, {"add_one.cl", source, ""})->kernel("add_one");
    queue->launch(*kernel, {alloy::Extent(n)}, n, *buffer);
    queue->read(*buffer, 0, values.data(), n * sizeof(int));
    queue->finish();
    for (int value : values) {
      if (value != 42) {
        std::fprintf(stderr, "%s: wrong result %d\n", device->label().c_str(), value);
        return 1;
      }
    }
    std::printf("%s: ok\n", device->label().c_str());
  }
  return 0;
}
