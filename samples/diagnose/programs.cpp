#include "programs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "alloy/emulated_kernels.hpp"
#include "embedded/diagnose_kernels_source.hpp"

namespace diagnose {
namespace {

/// An emulated device made with data=0 moves no data and computes nothing:
/// only its times are modelled, so there are no results to check.
bool models_time_only(const alloy::Executor& executor) {
  return executor.devices().front()->info().emulation.find("data=0") != std::string::npos;
}

const Outcome unchecked{true, "results not checked: the emulated device models time only (data=0)"};

const alloy::ProgramSource kernels{"diagnose_kernels.cl", std::string(alloy_kernels::diagnose_kernels_source), ""};

// --- transfer-bound: 64 MiB in, a little arithmetic per float, 64 MiB out.
constexpr std::size_t polish_count = std::size_t{1} << 24;
constexpr int polish_rounds = 8;

float polish_input(std::size_t i) { return static_cast<float>(i % 1024) / 1024.0f; }

/// The kernel's arithmetic on the host: each step is exact in single
/// precision only up to rounding, so the check allows a few ulps.
float polished(float value) {
  for (int round = 0; round < polish_rounds; ++round) value = value * 0.5f + 0.25f * value * value;
  return value;
}

Outcome check_polished(const std::vector<float>& y) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const float expected = polished(polish_input(i));
    if (std::fabs(y[i] - expected) > 1e-6f * (1.0f + std::fabs(expected))) ++wrong;
  }
  return {wrong == 0, std::to_string(y.size()) + " floats polished, " +
                          (wrong == 0 ? std::string("all right") : std::to_string(wrong) + " wrong")};
}

Outcome transfer_bound(alloy::Executor& executor, bool fixed) {
  std::vector<float> x(polish_count);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = polish_input(i);
  std::vector<float> y(polish_count);
  if (fixed) {
    // Chunks: chunk i+1 is copied in (and i-1 out) while chunk i computes.
    // Sixteen of 4 MiB, given rather than measured on the first chunks, so
    // that every run streams the same way (docs/streaming.md).
    alloy::PipelineOptions options;
    options.devices = {0};
    options.chunk_elements = polish_count / 16;
    alloy::Pipeline pipeline(executor, polish_count, options);
    const auto in = pipeline.input(std::span<const float>(x));
    const auto out = pipeline.output(std::span<float>(y));
    pipeline.kernel(kernels, "polish", {in, out, alloy::chunk_length, polish_rounds});
    pipeline.run();
  } else {
    // The whole array goes up, is computed, and comes back: the device
    // computes nothing while either copy runs.
    alloy::Buffer<float> input{std::span<const float>(x)};
    alloy::Buffer<float> output(polish_count);
    alloy::TaskOptions on_first;
    on_first.device = 0;
    executor.kernel(kernels, "polish", {alloy::Extent(polish_count)},
                    {alloy::read(input), alloy::write(output), std::uint64_t{polish_count}, polish_rounds}, on_first);
    executor.synchronize(output);
    const auto result = output.host();
    y.assign(result.begin(), result.end());
  }
  return models_time_only(executor) ? unchecked : check_polished(y);
}

// --- launch-bound: 2000 steps over 4096 integers, a kernel per step.
constexpr int step_count = 2000;
constexpr int step_length = 4096;

Outcome launch_bound(alloy::Executor& executor, bool fixed) {
  std::vector<std::uint32_t> start(step_length);
  for (int i = 0; i < step_length; ++i) start[i] = static_cast<std::uint32_t>(i) * 2654435761u;
  alloy::Buffer<std::uint32_t> values{std::span<const std::uint32_t>(start)};
  alloy::TaskOptions on_first;
  on_first.device = 0;
  alloy::Graph graph;
  // Submitted as one graph: the device never waits for the program to
  // submit, only for each launch.
  const int tasks = fixed ? 1 : step_count;
  const int steps_per_task = step_count / tasks;
  for (int task = 0; task < tasks; ++task) {
    graph.kernel(kernels, "step_values", {alloy::Extent(step_length)},
                 {alloy::read_write(values), step_length, steps_per_task}, on_first);
  }
  executor.run(graph);
  executor.synchronize(values);
  if (models_time_only(executor)) return unchecked;
  // Integers: the device's result must equal the host's exactly.
  std::size_t wrong = 0;
  const auto result = values.host();
  for (int i = 0; i < step_length; ++i) {
    std::uint32_t expected = start[i];
    for (int step = 0; step < step_count; ++step) expected = 3u * expected + 1u;
    wrong += result[i] != expected;
  }
  return {wrong == 0, std::to_string(step_count) + " steps over " + std::to_string(step_length) + " integers in " +
                          std::to_string(tasks) + (tasks == 1 ? " kernel, " : " kernels, ") +
                          (wrong == 0 ? std::string("all exact") : std::to_string(wrong) + " wrong")};
}

// --- untuned: four 512-cubed gemms with whatever the profiles chose.
constexpr int gemm_n = 512;
constexpr int gemm_runs = 4;

Outcome untuned(alloy::Executor& executor) {
  const std::size_t elements = std::size_t{gemm_n} * gemm_n;
  std::vector<float> a(elements);
  std::vector<float> b(elements);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& value : a) value = uniform(random);
  for (float& value : b) value = uniform(random);
  alloy::Buffer<float> buffer_a{std::span<const float>(a)};
  alloy::Buffer<float> buffer_b{std::span<const float>(b)};
  alloy::Buffer<float> buffer_c(elements);
  alloy::TaskOptions on_first;
  on_first.device = 0;
  on_first.flops = 2.0 * gemm_n * gemm_n * gemm_n;
  alloy::Graph graph;
  for (int run = 0; run < gemm_runs; ++run) {
    graph.kernel(alloy::kernel_library::gemm(), alloy::Extent(gemm_n, gemm_n, gemm_n),
                 {gemm_n, gemm_n, gemm_n, alloy::read(buffer_a), alloy::read(buffer_b), alloy::write(buffer_c)},
                 on_first);
  }
  executor.run(graph);
  executor.synchronize(buffer_c);
  if (models_time_only(executor)) return unchecked;
  // A sample of elements against a double-precision product.
  const auto c = buffer_c.host();
  double worst = 0;
  for (int check = 0; check < 500; ++check) {
    const std::size_t row = random() % gemm_n;
    const std::size_t column = random() % gemm_n;
    double expected = 0;
    for (std::size_t k = 0; k < gemm_n; ++k) expected += double(a[row * gemm_n + k]) * b[k * gemm_n + column];
    worst = std::max(worst, std::fabs(expected - c[row * gemm_n + column]) / (1.0 + std::fabs(expected)));
  }
  char summary[96];
  std::snprintf(summary, sizeof summary, "%d gemms of %d cubed, max relative error %.1e", gemm_runs, gemm_n, worst);
  return {worst < 1e-3, summary};
}

}  // namespace

void define_emulated_models() {
  alloy::emulation::KernelModel polish;
  polish.run = [](const alloy::emulation::KernelLaunch& launch) {
    const float* x = launch.pointer<float>(0);
    float* y = launch.pointer<float>(1);
    const auto length = launch.scalar<std::uint64_t>(2);
    for (std::uint64_t i = 0; i < length; ++i) y[i] = polished(x[i]);
  };
  // Its time is the machine model's: `item` ns per float (ALLOY_EMULATED_DEVICES).
  alloy::emulation::define_kernel("polish", polish);

  alloy::emulation::KernelModel step;
  step.run = [](const alloy::emulation::KernelLaunch& launch) {
    auto* values = launch.pointer<std::uint32_t>(0);
    const auto length = launch.scalar<int>(1);
    const auto times = launch.scalar<int>(2);
    for (int i = 0; i < length; ++i) {
      for (int t = 0; t < times; ++t) values[i] = 3u * values[i] + 1u;
    }
  };
  step.seconds = [](const alloy::emulation::KernelLaunch& launch) {
    return static_cast<double>(launch.scalar<int>(1)) * launch.scalar<int>(2) * 1e-11;
  };
  alloy::emulation::define_kernel("step_values", step);
}

alloy::Device* find_device(alloy::Runtime& runtime, const std::string& choice) {
  const auto& devices = runtime.devices();
  if (!choice.empty() && choice.size() < 6 && std::all_of(choice.begin(), choice.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const std::size_t index = std::stoul(choice);
    return index < devices.size() ? devices[index] : nullptr;
  }
  for (const alloy::BackendStatus& backend : runtime.backends()) {
    if (backend.name == choice && !backend.devices.empty()) return backend.devices.front();
  }
  return nullptr;
}

std::string_view name(Program program) {
  switch (program) {
    case Program::transfer_bound: return "transfer-bound";
    case Program::launch_bound: return "launch-bound";
    case Program::untuned: return "untuned";
  }
  return "?";
}

Outcome run(alloy::Executor& executor, Program program, bool fixed) {
  switch (program) {
    case Program::transfer_bound: return transfer_bound(executor, fixed);
    case Program::launch_bound: return launch_bound(executor, fixed);
    case Program::untuned: return untuned(executor);
  }
  return {};
}

}  // namespace diagnose
