// CLBlast's SGEMM as a baseline for alloy's tuned gemm: with the parameters
// CLBlast ships, and with those its own tuner (clblast::TuneXgemm, the
// tuner clblast_tuner_xgemm runs) finds on this device. Every call is timed
// on the host from the call to the queue's end, as alloy's gemm is in (c):
// CLBlast may run helper kernels (padding, transposing) before its gemm
// kernel, and a user waits for all of them. Built only where CLBlast is
// found.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>

#include "bench_autotune.hpp"

#ifdef ALLOY_HAVE_CLBLAST
#include "clblast_opencl.hpp"
#endif

namespace alloy::bench {

#ifndef ALLOY_HAVE_CLBLAST
ClblastSgemm clblast_sgemm(const std::string&, const std::vector<std::size_t>&, const std::filesystem::path&,
                           double) {
  ClblastSgemm result;
  result.why = "CLBlast was not found when bench_autotune was built (install libclblast-dev)";
  return result;
}
#else
namespace {

// CLBlast's tuned Xgemm parameters for this device: read from `file`, or
// found by CLBlast's tuner and written there, so one machine tunes once.
std::optional<std::unordered_map<std::string, std::size_t>> tuned_parameters(cl::CommandQueue& queue,
                                                                             const std::filesystem::path& file,
                                                                             double fraction, std::string& why) {
  std::unordered_map<std::string, std::size_t> parameters;
  if (std::ifstream in{file}) {
    nlohmann::json saved = nlohmann::json::parse(in, nullptr, false);
    // What clblast_tuner_xgemm writes (clblast_xgemm_1_32.json): its
    // fastest result's parameters, but for the precision.
    if (saved.is_object() && saved.contains("results")) {
      const nlohmann::json* best = nullptr;
      for (const nlohmann::json& row : saved["results"]) {
        if (!best || row.at("time").get<double>() < best->at("time").get<double>()) best = &row;
      }
      saved = best ? best->at("parameters") : nlohmann::json();
      if (saved.is_object()) saved.erase("PRECISION");
    }
    if (saved.is_object()) {
      for (const auto& [name, value] : saved.items()) parameters[name] = value.get<std::size_t>();
      return parameters;
    }
  }
  std::fprintf(stderr, "(c) CLBlast's own tuner on Xgemm 1024, 1/%.0f of its space (written to %s)\n",
               fraction, file.string().c_str());
  cl_command_queue raw_queue = queue();
  const clblast::StatusCode status = clblast::TuneXgemm<float>(&raw_queue, 1024, 1024, 1024, fraction, parameters);
  if (status != clblast::StatusCode::kSuccess) {
    why = "clblast::TuneXgemm failed with status " + std::to_string(int(status));
    return std::nullopt;
  }
  std::ofstream(file) << nlohmann::json(parameters).dump(2) << '\n';
  return parameters;
}

}  // namespace

ClblastSgemm clblast_sgemm(const std::string& device_name, const std::vector<std::size_t>& sizes,
                           const std::filesystem::path& parameters_file, double tune_fraction) {
  ClblastSgemm result;
  const std::optional<cl::Device> chosen = opencl_device(device_name);
  if (!chosen) {
    result.why = "no OpenCL device called " + device_name + " (CLBlast runs on OpenCL only)";
    return result;
  }
  cl::Context context(*chosen);
  cl::CommandQueue queue(context, *chosen, CL_QUEUE_PROFILING_ENABLE);

  auto time_sizes = [&](std::map<std::size_t, double>& seconds_by_size) {
    for (std::size_t n : sizes) {
      std::vector<float> values(n * n);
      std::mt19937 random(1);
      std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
      for (float& value : values) value = uniform(random);
      const std::size_t bytes = values.size() * sizeof(float);
      cl::Buffer a(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, values.data());
      cl::Buffer b(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, values.data());
      cl::Buffer c(context, CL_MEM_READ_WRITE, bytes);
      auto run = [&]() -> std::optional<double> {
        cl_command_queue raw_queue = queue();
        const auto start = std::chrono::steady_clock::now();
        const clblast::StatusCode status = clblast::Gemm<float>(
            clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, n, n, n, 1.0f, a(), 0, n,
            b(), 0, n, 0.0f, c(), 0, n, &raw_queue, nullptr);
        queue.finish();
        if (status != clblast::StatusCode::kSuccess) {
          result.why = "clblast::Gemm failed with status " + std::to_string(int(status));
          return std::nullopt;
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      };
      // The first call compiles CLBlast's kernels: warm up twice.
      if (!run() || !run()) return false;
      std::vector<double> seconds;
      for (int r = 0; r < (n >= 2048 ? 3 : 7); ++r) {
        const std::optional<double> one = run();
        if (!one) return false;
        seconds.push_back(*one);
      }
      std::sort(seconds.begin(), seconds.end());
      seconds_by_size[n] = seconds[seconds.size() / 2];
    }
    return true;
  };
  if (!time_sizes(result.shipped_seconds)) return result;
  const std::optional<std::unordered_map<std::string, std::size_t>> parameters =
      tuned_parameters(queue, parameters_file, tune_fraction, result.why);
  if (!parameters) return result;
  if (clblast::OverrideParameters((*chosen)(), "Xgemm", clblast::Precision::kSingle, *parameters) !=
      clblast::StatusCode::kSuccess) {
    result.why = "clblast::OverrideParameters refused the tuned parameters in " + parameters_file.string();
    return result;
  }
  for (const auto& [name, value] : *parameters) {
    result.tuned_parameters += (result.tuned_parameters.empty() ? "" : " ") + name + "=" + std::to_string(value);
  }
  time_sizes(result.tuned_seconds);
  return result;
}
#endif

}  // namespace alloy::bench
