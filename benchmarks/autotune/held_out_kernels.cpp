// The held-out kernels of bench_autotune (f) and (g), with their harnesses.
#include "held_out_kernels.hpp"

#include "embedded/gemv_source.hpp"
#include "embedded/histogram_source.hpp"
#include "embedded/jacobi_source.hpp"

namespace alloy::bench {

using autotune::HarnessArgument;
using autotune::HarnessBuffer;
using autotune::HostArray;

HeldOut held_out_jacobi() {
  autotune::TuningTarget target;
  TunableKernel& k = target.kernel;
  k.name = "held_out.jacobi";
  k.source = {"jacobi.cl", std::string(alloy_kernels::jacobi_source), ""};
  k.kernel_name = "jacobi";
  k.parameters = {{"TX", {1, 2, 4, 8, 16, 32, 64, 128}, 16, {}},
                  {"TY", {1, 2, 4, 8, 16}, 4, {}},
                  {"PY", {1, 2, 4, 8}, 1, {}}};
  k.constraints = {{TuningConstraint::Kind::at_most, {1, {"TX", "TY"}, {}}, {256, {}, {}}}};
  k.launch = {{0, {}, {}, {1, {"TX"}, {}}}, {1, {}, {1, {"PY"}, {}}, {1, {"TY"}, {}}}};
  target.harness.buffers = {HarnessBuffer::input("in", {1, {}, {0, 1}}),
                            HarnessBuffer::checked_output("out", {1, {}, {0, 1}}, {{}, 1e-6, 1e-6})};
  target.harness.buffers[1].reset_each_run = false;  // every run writes all of it
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::buffer(0), HarnessArgument::buffer(1)};
  target.harness.reference = [](const Extent& problem, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::size_t n = problem[0];
    const std::span<const float> in = buffers[0].view<float>();
    const std::span<float> out = expected[0].view<float>();
    for (std::size_t y = 0; y < n; ++y) {
      for (std::size_t x = 0; x < n; ++x) {
        const std::size_t i = y * n + x;
        out[i] = (x == 0 || y == 0 || x == n - 1 || y == n - 1)
                     ? in[i]
                     : 0.2f * ((((in[i] + in[i - 1]) + in[i + 1]) + in[i - n]) + in[i + n]);
      }
    }
  };
  return {target, Extent(2048, 2048)};
}

HeldOut held_out_gemv() {
  autotune::TuningTarget target;
  TunableKernel& k = target.kernel;
  k.name = "held_out.gemv";
  k.source = {"gemv.cl", std::string(alloy_kernels::gemv_source), ""};
  k.kernel_name = "gemv";
  k.parameters = {{"WGS", {8, 16, 32, 64, 128, 256}, 64, {}},
                  {"ROWS", {1, 2, 4, 8}, 1, {}},
                  {"UNROLL", {1, 2, 4, 8}, 1, {}}};
  k.launch = {{0, {}, {1, {"ROWS"}, {}}, {1, {"WGS"}, {}}}};
  target.harness.buffers = {HarnessBuffer::input("a", {1, {}, {0, 1}}), HarnessBuffer::input("x", {1, {}, {1}}),
                            HarnessBuffer::checked_output("y", {1, {}, {0}}, {{}, 1e-5, 1e-4})};
  target.harness.buffers[2].reset_each_run = false;
  target.harness.arguments = {HarnessArgument::dimension(0), HarnessArgument::dimension(1), HarnessArgument::buffer(0),
                              HarnessArgument::buffer(1), HarnessArgument::buffer(2)};
  target.harness.reference = [](const Extent& problem, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::size_t m = problem[0];
    const std::size_t n = problem[1];
    const std::span<const float> a = buffers[0].view<float>();
    const std::span<const float> x = buffers[1].view<float>();
    for (std::size_t row = 0; row < m; ++row) {
      float sum = 0.0f;  // the kernel's order, in float
      for (std::size_t c = 0; c < n; ++c) sum += a[row * n + c] * x[c];
      expected[0].view<float>()[row] = sum;
    }
  };
  return {target, Extent(4096, 2048)};
}

HeldOut held_out_histogram() {
  autotune::TuningTarget target;
  TunableKernel& k = target.kernel;
  k.name = "held_out.histogram";
  k.source = {"histogram.cl", std::string(alloy_kernels::histogram_source), ""};
  k.kernel_name = "histogram";
  k.parameters = {{"ITEMS", {1, 2, 4, 8, 16, 32}, 1, {}},
                  {"WGS", {0, 32, 64, 128, 256}, 64, {}},
                  {"STRIDED", {0, 1}, 0, {"no", "yes"}}};
  k.launch = {{0, {}, {1, {"ITEMS"}, {}}, {1, {"WGS"}, {}}}};
  // Skewed bytes: a few values are most of the input, so atomics collide.
  target.harness.buffers = {
      HarnessBuffer::input("in", {1, {}, {0}}, HarnessBuffer::Fill::skewed, ScalarType::u8),
      HarnessBuffer::checked_output("bins", {256, {}, {}}, {}, ScalarType::i32)};
  target.harness.arguments = {HarnessArgument::dimension(0, ScalarType::u64), HarnessArgument::buffer(0),
                              HarnessArgument::buffer(1)};
  target.harness.reference = [](const Extent&, const std::vector<HostArray>& buffers,
                                std::vector<HostArray>& expected) {
    const std::span<std::int32_t> bins = expected[0].view<std::int32_t>();
    for (std::uint8_t byte : buffers[0].view<std::uint8_t>()) ++bins[byte];
  };
  return {target, Extent(std::size_t{1} << 24)};
}

autotune::TuneOptions default_tune_options(std::uint64_t seed) {
  autotune::TuneOptions options;
  options.budget.wall_time = std::chrono::duration<double>(60);
  options.budget.stall = 40;
  options.seed = seed;
  return options;
}

}  // namespace alloy::bench
