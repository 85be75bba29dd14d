// Host task fed by device 1 while device 0 runs a long kernel, in one graph run:
// prints how long after submission the host task started.
#include <alloy/alloy.hpp>
#include <chrono>
#include <cstdio>
const char* source = R"(
KERNEL void spin(const int n, GLOBAL float* restrict out) {
  float x = 0.0f;
  for (int i = 0; i < n; ++i) x = x * 0.999f + (float)i;
  out[get_global_id(0)] = x;
}
KERNEL void quick(GLOBAL float* restrict out) { out[get_global_id(0)] = 1.0f; })";
int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000000;
  alloy::Runtime runtime;
  alloy::Executor executor(runtime);
  for (int trial = 0; trial < 5; ++trial) {
    alloy::Buffer<float> a(1), b(64);
    alloy::Graph graph;
    alloy::TaskOptions on0; on0.device = 0;
    alloy::TaskOptions on1; on1.device = 1;
    alloy::Graph long_run;
    long_run.kernel({"l.cl", source, ""}, "spin", {alloy::Extent(1), alloy::Extent(1)}, {n, alloy::write(a)}, on0);
    graph.kernel({"l.cl", source, ""}, "quick", {alloy::Extent(64), alloy::Extent(64)}, {alloy::write(b)}, on1);
    std::chrono::steady_clock::time_point started;
    graph.host({alloy::read(b)}, [&] { started = std::chrono::steady_clock::now(); });
    executor.run(long_run);  // a graph run of a long kernel on device 0, then:
    const auto submitted = std::chrono::steady_clock::now();
    executor.run(graph);
    executor.wait();
    const auto done = std::chrono::steady_clock::now();
    std::printf("trial %d: host task started %.1f ms after submission; the run took %.1f ms\n", trial,
                std::chrono::duration<double, std::milli>(started - submitted).count(),
                std::chrono::duration<double, std::milli>(done - submitted).count());
  }
}
