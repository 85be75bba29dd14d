// CLBlast's SGEMM with its shipped parameters, timed on the host: the
// baseline for alloy's tuned gemm. Built only where CLBlast is found.
#include <algorithm>
#include <chrono>
#include <random>

#include "bench_autotune.hpp"

#ifdef ALLOY_HAVE_CLBLAST
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <clblast.h>
#endif

namespace alloy::bench {

std::optional<double> clblast_sgemm_seconds(const std::string& device_name, std::size_t n, std::string& why) {
#ifndef ALLOY_HAVE_CLBLAST
  (void)device_name;
  (void)n;
  why = "CLBlast was not found when bench_autotune was built (install libclblast-dev)";
  return std::nullopt;
#else
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  cl::Device chosen;
  bool found = false;
  for (const cl::Platform& platform : platforms) {
    std::vector<cl::Device> devices;
    platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    for (const cl::Device& device : devices) {
      if (!found && device.getInfo<CL_DEVICE_NAME>() == device_name) {
        chosen = device;
        found = true;
      }
    }
  }
  if (!found) {
    why = "no OpenCL device called " + device_name + " (CLBlast runs on OpenCL only)";
    return std::nullopt;
  }
  cl::Context context(chosen);
  cl::CommandQueue queue(context, chosen);
  std::vector<float> values(n * n);
  std::mt19937 random(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& value : values) value = uniform(random);
  const std::size_t bytes = values.size() * sizeof(float);
  cl::Buffer a(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, values.data());
  cl::Buffer b(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, values.data());
  cl::Buffer c(context, CL_MEM_READ_WRITE, bytes);
  auto run = [&]() -> std::optional<double> {
    // Timed on the host around the whole call: CLBlast may run helper
    // kernels (padding, transposing) before its gemm kernel, and a user
    // waits for all of them.
    cl_command_queue raw_queue = queue();
    const auto start = std::chrono::steady_clock::now();
    const clblast::StatusCode status = clblast::Gemm<float>(
        clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, n, n, n, 1.0f,
        a(), 0, n, b(), 0, n, 0.0f, c(), 0, n, &raw_queue, nullptr);
    queue.finish();
    if (status != clblast::StatusCode::kSuccess) {
      why = "clblast::Gemm failed with status " + std::to_string(int(status));
      return std::nullopt;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // The first call compiles CLBlast's kernels: warm up twice.
  for (int warm_up = 0; warm_up < 2; ++warm_up) {
    if (!run()) return std::nullopt;
  }
  std::vector<double> seconds;
  for (int r = 0; r < (n >= 2048 ? 3 : 7); ++r) {
    const std::optional<double> one = run();
    if (!one) return std::nullopt;
    seconds.push_back(*one);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
#endif
}

}  // namespace alloy::bench
