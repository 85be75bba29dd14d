// (c) SGEMM GFLOP/s: alloy's gemm as this machine's profiles configure it, the
// same kernel with its defaults, and CLBlast's SGEMM with its shipped and
// its own tuned parameters, in one process, every one timed on the host from
// the call to the queue's end.
#include <cstdio>
#include <random>

#include "alloy/kernel_library.hpp"
#include "bench_autotune.hpp"

namespace alloy::bench {
namespace {

double gflops(std::size_t n, double seconds) { return 2.0 * double(n) * double(n) * double(n) / seconds * 1e-9; }

}  // namespace

nlohmann::json sgemm_versus_clblast(Runtime& runtime, Device& device, const std::vector<std::size_t>& sizes,
                                    const std::filesystem::path& clblast_parameters, double clblast_fraction) {
  const TunableKernel& gemm = kernel_library::gemm();
  const ClblastSgemm clblast = clblast_sgemm(device.info().name, sizes, clblast_parameters, clblast_fraction);
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t n : sizes) {
    std::fprintf(stderr, "(c) SGEMM %zu: alloy tuned, alloy default\n", n);
    const Extent problem(n, n, n);
    std::vector<float> values(n * n);
    std::mt19937 random(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& value : values) value = uniform(random);
    auto queue = device.create_queue();
    auto c = device.allocate(values.size() * sizeof(float));
    // A and B in the layout each configuration chooses (rows padded, say).
    std::vector<std::unique_ptr<DeviceBuffer>> operands;
    auto arguments = [&](const Configuration& configuration) {
      const HostMatrix square{n, n, false, 0, ScalarType::f32};
      const std::vector<std::byte> bytes =
          matrix_argument_bytes(gemm, configuration, "a", square, std::as_bytes(std::span(values)));
      for (int operand = 0; operand < 2; ++operand) {
        operands.push_back(device.allocate(bytes.size()));
        queue->write(*operands.back(), 0, bytes.data(), bytes.size());
      }
      queue->finish();
      return std::vector<KernelArg>{KernelArg::from(int(n)), KernelArg::from(int(n)), KernelArg::from(int(n)),
                                    KernelArg::from(*operands[operands.size() - 2]),
                                    KernelArg::from(*operands.back()), KernelArg::from(*c)};
    };
    const unsigned repetitions = n >= 2048 ? 3 : 7;

    const TunedKernel tuned = runtime.tuned(device, gemm, problem);
    const double tuned_seconds = time_launches(device, *tuned.kernel, tuned.range,
                                               arguments(tuned.choice.configuration), repetitions, LaunchTiming::host);
    const Configuration defaults = gemm.default_configuration();
    auto default_kernel = runtime.program(device, configured_source(gemm, defaults))->kernel(gemm.kernel_name);
    const double default_seconds =
        time_launches(device, *default_kernel, configured_launch(gemm, defaults, problem), arguments(defaults),
                      repetitions, LaunchTiming::host);

    nlohmann::json row = {{"n", n},
                          {"profile_match", std::string(to_string(tuned.choice.match))},
                          {"tuned_configuration", describe(gemm, tuned.choice.configuration)},
                          {"alloy_tuned_gflops", gflops(n, tuned_seconds)},
                          {"alloy_default_gflops", gflops(n, default_seconds)}};
    auto clblast_figure = [&](const std::map<std::size_t, double>& seconds, const char* gflops_key,
                              const char* ratio_key) {
      const auto found = seconds.find(n);
      row[gflops_key] = found != seconds.end() ? nlohmann::json(gflops(n, found->second)) : nlohmann::json(nullptr);
      row[ratio_key] = found != seconds.end() ? nlohmann::json(found->second / tuned_seconds) : nlohmann::json(nullptr);
    };
    clblast_figure(clblast.shipped_seconds, "clblast_gflops", "tuned_vs_clblast");
    clblast_figure(clblast.tuned_seconds, "clblast_tuned_gflops", "tuned_vs_clblast_tuned");
    row["clblast_tuned_parameters"] = clblast.tuned_parameters;
    if (!clblast.why.empty()) row["clblast_missing"] = clblast.why;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace alloy::bench
