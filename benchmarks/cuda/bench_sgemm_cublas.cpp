// SGEMM on an NVIDIA GPU: alloy's gemm on the CUDA backend, configured by
// the device's profile (`autotune --kernel alloy.gemm` first), against
// cuBLAS's cublasSgemm on the same GPU, in one process (Google Benchmark,
// GFLOP/s). scripts/gpu-check runs it; the target is alloy ≥ 0.8× cuBLAS at
// 4096. Without a CUDA device every case is skipped, saying why.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "alloy/kernel_library.hpp"
#include "alloy/runtime.hpp"

namespace {

alloy::Runtime& runtime() {
  static alloy::Runtime shared;
  return shared;
}

alloy::Device* cuda_device() {
  for (alloy::Device* device : runtime().devices()) {
    if (device->info().backend == "cuda") return device;
  }
  return nullptr;
}

void report(benchmark::State& state, std::size_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * double(n) * double(n) * double(n) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void gemm_alloy(benchmark::State& state) {
  alloy::Device* device = cuda_device();
  if (!device) {
    state.SkipWithError("no CUDA device: alloy-info says why");
    return;
  }
  const std::size_t n = std::size_t(state.range(0));
  const alloy::TunableKernel& gemm = alloy::kernel_library::gemm();
  const alloy::TunedKernel tuned = runtime().tuned(*device, gemm, alloy::Extent(n, n, n));
  state.SetLabel(std::string(alloy::to_string(tuned.choice.match)) + " " +
                 alloy::describe(gemm, tuned.choice.configuration));
  auto queue = device->create_queue();
  const std::vector<float> values(n * n, 0.5f);
  // A and B in the layout the configuration chose (rows padded, say).
  const alloy::HostMatrix square{n, n, false, 0, alloy::ScalarType::f32};
  const std::vector<std::byte> operand =
      alloy::matrix_argument_bytes(gemm, tuned.choice.configuration, "a", square, std::as_bytes(std::span(values)));
  auto a = device->allocate(operand.size());
  auto b = device->allocate(operand.size());
  auto c = device->allocate(values.size() * sizeof(float));
  queue->write(*a, 0, operand.data(), operand.size());
  queue->write(*b, 0, operand.data(), operand.size());
  const int size = int(n);
  queue->launch(*tuned.kernel, tuned.range, size, size, size, *a, *b, *c);  // warm-up
  queue->finish();
  for (auto _ : state) {
    queue->launch(*tuned.kernel, tuned.range, size, size, size, *a, *b, *c);
    queue->finish();
  }
  report(state, n);
}

void gemm_cublas(benchmark::State& state) {
  if (!cuda_device()) {
    state.SkipWithError("no CUDA device: alloy-info says why");
    return;
  }
  const std::size_t n = std::size_t(state.range(0));
  const std::size_t bytes = n * n * sizeof(float);
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cublasHandle_t handle = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess ||
      cudaMalloc(&c, bytes) != cudaSuccess || cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError("cudaMalloc or cublasCreate failed");
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return;
  }
  const std::vector<float> values(n * n, 0.5f);
  cudaMemcpy(a, values.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b, values.data(), bytes, cudaMemcpyHostToDevice);
  const float one = 1.0f, zero = 0.0f;
  const int size = int(n);
  // Row-major C = A B is column-major C^T = B^T A^T: B first.
  auto run = [&] {
    const cublasStatus_t status =
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &one, b, size, a, size, &zero, c, size);
    cudaDeviceSynchronize();
    return status == CUBLAS_STATUS_SUCCESS;
  };
  if (!run()) {
    state.SkipWithError("cublasSgemm failed");
  } else {
    for (auto _ : state) run();
    report(state, n);
  }
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

void sizes(benchmark::internal::Benchmark* benchmark) {
  for (const int n : {1024, 2048, 4096}) benchmark->Arg(n);
}

}  // namespace

BENCHMARK(gemm_alloy)->Name("sgemm/alloy")->Apply(sizes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(gemm_cublas)->Name("sgemm/cublas")->Apply(sizes)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
