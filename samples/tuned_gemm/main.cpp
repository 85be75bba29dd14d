// tuned_gemm sample: C = A × B with alloy's tunable gemm kernel in a task
// graph. The code names no configuration: once `autotune` has written this
// machine's profile, the same program runs the tuned kernel.
//
//   tuned_gemm [n]     (default 1024)
#include <alloy/alloy.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

int run(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  // Any size: the kernel checks bounds on the edge tiles only.
  if (n <= 0) {
    std::fprintf(stderr, "tuned_gemm: n must be a positive number (got %s)\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  alloy::Runtime runtime;
  if (runtime.devices().empty()) {
    std::fprintf(stderr, "tuned_gemm: no device; alloy-info says why\n");
    return 1;
  }
  alloy::Device& device = *runtime.devices().front();
  const alloy::TunableKernel& gemm = alloy::kernel_library::gemm();
  const alloy::Extent problem(n, n, n);
  const alloy::TunedChoice choice = runtime.profiles().lookup(device.info(), gemm, problem);
  std::printf("device %s\nprofile: %s", device.label().c_str(),
              std::string(alloy::to_string(choice.match)).c_str());
  if (choice.match == alloy::ProfileMatch::defaults) std::printf(" (run `autotune` to tune this machine)");
  std::printf("\nconfiguration: %s\n", alloy::describe(gemm, choice.configuration).c_str());

  std::vector<float> a(std::size_t(n) * n), b(a.size());
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& value : a) value = uniform(random);
  for (float& value : b) value = uniform(random);
  alloy::Buffer<float> buffer_a{std::span<const float>(a)};
  alloy::Buffer<float> buffer_b{std::span<const float>(b)};
  alloy::Buffer<float> buffer_c(a.size());

  alloy::Graph graph;
  graph.kernel(gemm, problem, {n, n, n, alloy::read(buffer_a.whole()), alloy::read(buffer_b.whole()),
                               alloy::write(buffer_c.whole())});
  alloy::ExecutorOptions options;
  options.devices = {&device};
  alloy::Executor executor(runtime, options);
  // The first run compiles and moves the inputs; the rest are timed.
  std::vector<double> seconds;
  for (int run = 0; run < 6; ++run) {
    const auto start = std::chrono::steady_clock::now();
    executor.run(graph);
    executor.wait();
    if (run > 0) seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  executor.synchronize(buffer_c);
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];

  // Check 2000 random elements against a double-precision host product.
  const std::span<const float> c = buffer_c.host();
  double worst = 0;
  for (int check = 0; check < 2000; ++check) {
    const int row = int(random() % unsigned(n));
    const int column = int(random() % unsigned(n));
    double expected = 0;
    for (int k = 0; k < n; ++k) expected += double(a[std::size_t(row) * n + k]) * b[std::size_t(k) * n + column];
    worst = std::max(worst, std::fabs(expected - c[std::size_t(row) * n + column]) / (1.0 + std::fabs(expected)));
  }
  const bool right = worst < 1e-3;
  std::printf("C = A x B, %d x %d: %.2f ms, %.1f GFLOP/s, %s (max relative error %.1e)\n", n, n, median * 1e3,
              2.0 * n * double(n) * n / median * 1e-9, right ? "verified" : "WRONG", worst);
  return right ? 0 : 1;
}

int main(int argc, char** argv) {
  // An alloy error (a bad setting such as ALLOY_CAPTURE_LIMIT, a device that
  // fails) is printed with its reason, not left to std::terminate.
  try {
    return run(argc, argv);
  } catch (const alloy::Error& error) {
    std::fprintf(stderr, "%s: %s\n", "tuned_gemm", error.what());
    return 1;
  }
}
