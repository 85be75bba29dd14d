// Uses an installed alloy: finds the installed plugins and runs a kernel on every device.
#include <cstdio>
#include <vector>

#include <alloy/alloy.hpp>

int main() {
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
