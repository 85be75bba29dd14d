// (d) Triad bandwidth: alloy's triad as the profiles configure it and with
// its defaults, beside a plain triad (one element per work-item, the
// work-group left to the driver or swept) and the device's peak bandwidth
// as clpeak measures it. Contenders take turns over several rounds.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

#include "alloy/autotune/statistics.hpp"
#include "alloy/kernel_library.hpp"
#include "bench_autotune.hpp"

namespace alloy::bench {
namespace {

// The triad as an application would first write it.
constexpr const char* plain_triad_source = R"(
KERNEL void plain_triad(const int n, const float scalar, GLOBAL float* restrict a,
                        GLOBAL const float* restrict b, GLOBAL const float* restrict c) {
  const int i = (int)get_global_id(0);
  if (i < n) a[i] = b[i] + scalar * c[i];
}
)";

struct Contender {
  std::string name;
  std::shared_ptr<Kernel> kernel;
  LaunchRange range;
  std::vector<double> seconds;  // one median per round
};

}  // namespace

std::optional<double> clpeak_float16_gbps(const std::string& device_name, std::string& why) {
  FILE* pipe = ::popen("clpeak --global-bandwidth 2>/dev/null", "r");
  if (pipe == nullptr) {
    why = "clpeak could not be started";
    return std::nullopt;
  }
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  if (status != 0 || output.empty()) {
    why = "clpeak is not installed or failed (apt-get install clpeak)";
    return std::nullopt;
  }
  // "Device: <name>" then, among its figures, "float16 : <GB/s>".
  std::istringstream lines(output);
  std::string line;
  bool in_device = false;
  while (std::getline(lines, line)) {
    if (line.find("Device: ") != std::string::npos) in_device = line.find(device_name) != std::string::npos;
    const std::size_t at = line.find("float16");
    if (in_device && at != std::string::npos && line.find(':') != std::string::npos) {
      return std::stod(line.substr(line.find(':') + 1));
    }
  }
  why = "clpeak printed no float16 bandwidth for " + device_name;
  return std::nullopt;
}

nlohmann::json triad_bandwidth(Runtime& runtime, Device& device, std::size_t elements, unsigned rounds) {
  const TunableKernel& triad = kernel_library::triad();
  const Extent problem(elements);
  std::fprintf(stderr, "(d) triad over %zu floats: tuned, default, plain; %u rounds\n", elements, rounds);
  auto queue = device.create_queue();
  const std::size_t bytes = elements * sizeof(float);
  auto a = device.allocate(bytes);
  auto b = device.allocate(bytes);
  auto c = device.allocate(bytes);
  const float one = 1.0f;
  queue->fill(*b, 0, &one, sizeof one, bytes);
  queue->fill(*c, 0, &one, sizeof one, bytes);
  queue->finish();
  const std::vector<KernelArg> args = {KernelArg::from(int(elements)), KernelArg::from(3.0f),
                                       KernelArg::from(*a), KernelArg::from(*b), KernelArg::from(*c)};
  // Three arrays cross the memory bus per element: two read, one written.
  auto gigabytes_per_second = [&](double seconds) { return 3.0 * double(bytes) / seconds * 1e-9; };

  std::vector<Contender> contenders;
  const TunedKernel tuned = runtime.tuned(device, triad, problem);
  contenders.push_back({"tuned", tuned.kernel, tuned.range, {}});
  const Configuration defaults = triad.default_configuration();
  contenders.push_back({"default",
                        runtime.program(device, configured_source(triad, defaults))->kernel(triad.kernel_name),
                        configured_launch(triad, defaults, problem),
                        {}});
  const std::shared_ptr<Kernel> plain =
      runtime.program(device, ProgramSource{"plain_triad.cl", plain_triad_source, ""})->kernel("plain_triad");
  contenders.push_back({"plain, driver's work-group", plain, LaunchRange(problem), {}});
  for (std::size_t group : {64u, 128u, 256u, 512u, 1024u}) {
    if (group > device.info().max_work_group_size) continue;
    const std::size_t global = (elements + group - 1) / group * group;
    contenders.push_back({"plain, work-group " + std::to_string(group), plain,
                          LaunchRange(Extent(global), Extent(group)), {}});
  }
  for (unsigned round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < contenders.size(); ++k) {
      Contender& contender = contenders[(k + round) % contenders.size()];
      contender.seconds.push_back(time_launches(device, *contender.kernel, contender.range, args, 15));
    }
  }
  nlohmann::json rates = nlohmann::json::object();
  double plain_best = 0;
  for (const Contender& contender : contenders) {
    const double rate = gigabytes_per_second(autotune::summarize(contender.seconds).median);
    rates[contender.name] = rate;
    if (contender.name.rfind("plain", 0) == 0) plain_best = std::max(plain_best, rate);
  }
  const double tuned_rate = rates["tuned"];
  const double default_rate = rates["default"];
  std::string why = "clpeak measures OpenCL devices only";
  const double peak = device.info().backend == "opencl" ? clpeak_float16_gbps(device.info().name, why).value_or(0.0)
                                                        : 0.0;
  nlohmann::json figures = {{"elements", elements},
                            {"rounds", rounds},
                            {"profile_match", std::string(to_string(tuned.choice.match))},
                            {"tuned_configuration", describe(triad, tuned.choice.configuration)},
                            {"tuned_gbps", tuned_rate},
                            {"default_gbps", default_rate},
                            {"plain_best_gbps", plain_best},
                            {"gbps_by_contender", rates},
                            {"tuned_vs_plain_best", tuned_rate / plain_best},
                            {"default_vs_plain_best", default_rate / plain_best},
                            {"clpeak_float16_gbps", peak > 0 ? nlohmann::json(peak) : nlohmann::json(nullptr)},
                            {"tuned_vs_clpeak", peak > 0 ? nlohmann::json(tuned_rate / peak) : nlohmann::json(nullptr)}};
  if (peak <= 0) figures["clpeak_missing"] = why;
  return figures;
}

}  // namespace alloy::bench
