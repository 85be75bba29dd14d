// The floor under bench_graph's figures: empty kernels enqueued with plain
// OpenCL (CLHPP) on one profiling-free in-order queue, one finish at the end,
// on the OpenCL device alloy lists first. Registered only when the OpenCL
// headers are found.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench_graph_common.hpp"

namespace {

/// The OpenCL device named like alloy's first device, else the first one.
cl::Device matching_device() {
  const std::string wanted = bench::device().info().name;
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  std::vector<cl::Device> all;
  for (const cl::Platform& platform : platforms) {
    std::vector<cl::Device> devices;
    platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    all.insert(all.end(), devices.begin(), devices.end());
  }
  if (all.empty()) throw std::runtime_error("bench_graph: no OpenCL device for the baseline");
  for (const cl::Device& device : all) {
    if (device.getInfo<CL_DEVICE_NAME>() == wanted) return device;
  }
  return all.front();
}

void plain_opencl_enqueue(benchmark::State& state) {
  const cl::Device device = matching_device();
  const cl::Context context(device);
  cl::Program program(context, "__kernel void empty(void) {}");
  program.build({device});
  cl::Kernel kernel(program, "empty");
  cl::CommandQueue queue(context, device, 0);
  for (auto _ : state) {
    for (int i = 0; i < bench::tasks; ++i) {
      queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(1), cl::NullRange);
    }
    queue.finish();
  }
  bench::report_per_task(state);
}

}  // namespace

const auto registered = bench::steady(benchmark::RegisterBenchmark("plain_opencl_enqueue", plain_opencl_enqueue));
