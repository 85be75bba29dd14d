// Runs one portable kernel, saxpy, on every device alloy finds and checks it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "alloy/alloy.hpp"
#include "embedded/saxpy_source.hpp"

namespace {

constexpr std::size_t work_group_size = 64;

/// Runs y = a*x + y on `device`; returns the largest error against the host.
float run_saxpy(alloy::Runtime& runtime, alloy::Device& device, int n, double& kernel_ms) {
  const float a = 2.5f;
  std::vector<float> x(n);
  std::vector<float> y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.001f;
    y[i] = static_cast<float>(i % 7);
  }

  auto program = runtime.program(device, {"saxpy.cl", std::string(alloy_kernels::saxpy_source), ""});
  auto kernel = program->kernel("saxpy");
  auto queue = device.create_queue();
  const std::size_t bytes = x.size() * sizeof(float);
  auto device_x = device.allocate(bytes);
  auto device_y = device.allocate(bytes);
  queue->write(*device_x, 0, x.data(), bytes);
  queue->write(*device_y, 0, y.data(), bytes);
  // The global size is rounded up to whole work-groups; the kernel skips the rest.
  const std::size_t global = (n + work_group_size - 1) / work_group_size * work_group_size;
  auto launched = queue->launch(*kernel, {alloy::Extent(global), alloy::Extent(work_group_size)},
                                n, a, *device_x, *device_y);
  std::vector<float> result(n);
  queue->read(*device_y, 0, result.data(), bytes);
  queue->finish();
  kernel_ms = static_cast<double>(launched->timing().duration_ns()) * 1e-6;

  float max_error = 0.0f;
  for (int i = 0; i < n; ++i) max_error = std::max(max_error, std::fabs(result[i] - (a * x[i] + y[i])));
  return max_error;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  if (n <= 0) {
    std::fprintf(stderr, "usage: saxpy [elements > 0]\n");
    return 2;
  }
  alloy::Runtime runtime;
  if (runtime.devices().empty()) {
    std::fprintf(stderr, "saxpy: no devices found; run alloy-info to see why\n");
    return 1;
  }
  int failures = 0;
  for (alloy::Device* device : runtime.devices()) {
    try {
      double kernel_ms = 0.0;
      const float max_error = run_saxpy(runtime, *device, n, kernel_ms);
      const bool ok = max_error <= 1e-5f;
      std::printf("%-50s saxpy n=%d %s (max error %g), kernel %.3f ms\n", device->label().c_str(),
                  n, ok ? "verified" : "WRONG", max_error, kernel_ms);
      failures += ok ? 0 : 1;
    } catch (const alloy::Error& error) {
      std::fprintf(stderr, "%s: %s\n", device->label().c_str(), error.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
