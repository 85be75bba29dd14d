// Streaming against its serial baseline: a kernel of adjustable arithmetic
// intensity over a large array, copied in, computed and copied out (serial:
// all at once; depth2 and depth3: chunk by chunk through Pipeline), on every
// device found plus an emulated PCIe 5 device with two copy engines. Modes
// are interleaved and repeated; each configuration reports its median.
//
//   build/default/bin/bench_streaming                # table
//   build/default/bin/bench_streaming --json         # one object per configuration
//   build/default/bin/bench_streaming --megabytes 1024 --intensities 1,8,64
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "alloy/alloy.hpp"
#include "alloy/emulated_kernels.hpp"

namespace {

const alloy::ProgramSource intensity_kernel{"intensity.cl", R"(
// `iterations` dependent multiply-adds per element: arithmetic intensity.
KERNEL void intensity(GLOBAL const float* x, GLOBAL float* y, ulong length, int iterations) {
  const ulong i = get_global_id(0);
  if (i >= length) return;
  float v = x[i];
  for (int k = 0; k < iterations; ++k) v = v * 0.999f + 0.001f;
  y[i] = v;
}
)",
                                            ""};

/// Blocks of a size that fills warps on every GPU; the kernel skips the
/// work-items past a chunk's length, so any chunk length launches well.
constexpr std::size_t kernel_local_size = 256;

/// The emulated device models no data (data=0): what it costs is time only,
/// so that it can be driven at bus speeds host memcpy cannot reach.
constexpr const char* emulated_model = "pcie5,data=0,memory=32G";
/// Emulated compute: per element and iteration. With 4 bytes each way per
/// element at 50 GB/s, copy time equals compute time at intensity 8.
constexpr double emulated_seconds_per_iteration = 0.01e-9;

struct Options {
  std::size_t megabytes = 0;          ///< 0: 64 on CPU devices, 1024 on GPUs, 8192 emulated
  std::vector<int> intensities{1, 2, 4, 8, 16, 32, 64};
  int repeats = 3;
  bool json = false;
  std::string device_filter;  ///< a backend name, or empty for all
  /// The file source: a file of this many MiB through the pipeline against
  /// reading it alone and computing alone; 0 skips it.
  std::size_t file_megabytes = 256;
  int file_intensity = 8;
  std::filesystem::path file_folder = std::filesystem::temp_directory_path();
};

/// Host memory from calloc: pages an emulated device never touches cost nothing.
struct HostArray {
  explicit HostArray(std::size_t count)
      : data(static_cast<float*>(std::calloc(std::max<std::size_t>(count, 1), sizeof(float))), std::free),
        size(count) {
    if (!data) throw std::bad_alloc();
  }
  std::unique_ptr<float, decltype(&std::free)> data;
  std::size_t size;
  std::span<float> span() const { return {data.get(), size}; }
};

struct Mode {
  std::string name;
  unsigned depth;  ///< 1 with one chunk: the serial baseline
};

/// One mode's pipeline, kept across runs so that its device slots are made
/// once, as a program streaming repeatedly would keep it.
struct ModePipeline {
  ModePipeline(alloy::Executor& executor, const Mode& mode, const HostArray& x, HostArray& y)
      : pipeline(executor, x.size, options_for(mode, x.size)),
        in(pipeline.input(std::span<const float>(x.span()))),
        out(pipeline.output(y.span())) {}

  static alloy::PipelineOptions options_for(const Mode& mode, std::size_t elements) {
    alloy::PipelineOptions options;
    options.depth = mode.depth;
    options.chunk_elements = mode.depth == 1 ? elements : 0;  // serial: one chunk
    return options;
  }

  alloy::PipelineReport run(int intensity) {
    pipeline.kernel(intensity_kernel, "intensity", {in, out, alloy::chunk_length, intensity}, kernel_local_size);
    return pipeline.run();
  }

  alloy::Pipeline pipeline;
  alloy::PipelineInput in;
  alloy::PipelineOutput out;
};

std::size_t megabytes_for(const alloy::Device& device, const Options& options) {
  if (options.megabytes != 0) return options.megabytes;
  if (!device.info().emulation.empty()) return 8192;
  return device.info().type == alloy::DeviceType::cpu ? 64 : 1024;
}

nlohmann::json measure(alloy::Runtime& runtime, alloy::Device& device, const Options& options) {
  alloy::ExecutorOptions executor_options;
  executor_options.devices = {&device};
  alloy::Executor executor(runtime, executor_options);
  const std::size_t elements = megabytes_for(device, options) * (std::size_t{1} << 20) / sizeof(float);
  const HostArray x(elements);
  HostArray y(elements);
  const std::vector<Mode> modes{{"serial", 1}, {"depth2", 2}, {"depth3", 3}};
  std::vector<std::unique_ptr<ModePipeline>> pipelines;
  for (const Mode& mode : modes) pipelines.push_back(std::make_unique<ModePipeline>(executor, mode, x, y));
  nlohmann::json results = nlohmann::json::array();
  for (int intensity : options.intensities) {
    // Compiles, makes the slots and touches the memory once, unmeasured.
    for (auto& pipeline : pipelines) pipeline->run(intensity);
    std::vector<std::vector<alloy::PipelineReport>> reports(modes.size());
    for (int r = 0; r < options.repeats; ++r) {
      for (std::size_t m = 0; m < modes.size(); ++m) reports[m].push_back(pipelines[m]->run(intensity));
    }
    double serial_wall = 0.0;
    for (std::size_t m = 0; m < modes.size(); ++m) {
      auto& runs = reports[m];
      std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.wall < b.wall; });
      const alloy::PipelineReport& median = runs[runs.size() / 2];
      const double wall = static_cast<double>(median.wall.count()) * 1e-9;
      if (m == 0) serial_wall = wall;
      results.push_back({{"device", device.label()},
                         {"emulated", !device.info().emulation.empty()},
                         {"mode", modes[m].name},
                         {"intensity", intensity},
                         {"megabytes", elements * sizeof(float) >> 20},
                         {"chunk_elements", median.chunk_elements},
                         {"chunks", median.chunks},
                         {"wall_s", wall},
                         {"ideal_s", static_cast<double>(median.ideal.count()) * 1e-9},
                         {"efficiency", median.efficiency},
                         {"bound_s", static_cast<double>(median.bound.count()) * 1e-9},
                         {"bound_efficiency", median.bound_efficiency},
                         {"speedup_vs_serial", serial_wall / wall},
                         {"bound_by", median.bound_by},
                         {"host_memory", median.arrays.empty() ? "" : median.arrays[0]},
                         {"repeats", options.repeats}});
    }
  }
  return results;
}

/// Reads `path` front to back in 1 MiB blocks with O_DIRECT, as
/// `dd iflag=direct bs=1M` does; seconds taken.
double sequential_read_seconds(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
  const int use = fd >= 0 ? fd : ::open(path.c_str(), O_RDONLY);
  if (use < 0) throw std::runtime_error("cannot open " + path.string());
  constexpr std::size_t block = std::size_t{1} << 20;
  void* buffer = std::aligned_alloc(4096, block);
  const auto started = std::chrono::steady_clock::now();
  while (::read(use, buffer, block) > 0) {
  }
  const auto ended = std::chrono::steady_clock::now();
  std::free(buffer);
  ::close(use);
  return std::chrono::duration<double>(ended - started).count();
}

/// The file source against the slower of reading the file alone and
/// computing alone (the compute lane of the same data streamed from memory).
nlohmann::json measure_file(alloy::Runtime& runtime, alloy::Device& device, const Options& options) {
  alloy::ExecutorOptions executor_options;
  executor_options.devices = {&device};
  alloy::Executor executor(runtime, executor_options);
  const std::size_t elements = options.file_megabytes * (std::size_t{1} << 20) / sizeof(float);
  const std::filesystem::path path = options.file_folder / "alloy-bench-streaming.bin";
  {
    std::ofstream out(path, std::ios::binary);
    std::vector<float> block(1 << 18, 0.5f);
    for (std::size_t done = 0; done < elements; done += block.size()) {
      out.write(reinterpret_cast<const char*>(block.data()),
                static_cast<std::streamsize>(std::min(block.size(), elements - done) * sizeof(float)));
    }
  }
  HostArray y(elements);
  const HostArray x(elements);
  alloy::Pipeline from_file(executor, elements);
  const auto file_in = from_file.input_file<float>(path);
  const auto file_out = from_file.output(y.span());
  from_file.kernel(intensity_kernel, "intensity", {file_in, file_out, alloy::chunk_length, options.file_intensity},
                   kernel_local_size);
  alloy::Pipeline from_memory(executor, elements);
  const auto memory_in = from_memory.input(std::span<const float>(x.span()));
  const auto memory_out = from_memory.output(y.span());
  from_memory.kernel(intensity_kernel, "intensity", {memory_in, memory_out, alloy::chunk_length, options.file_intensity},
                     kernel_local_size);
  from_file.run();
  from_memory.run();
  std::vector<double> walls, reads, computes;
  for (int r = 0; r < options.repeats; ++r) {
    walls.push_back(static_cast<double>(from_file.run().wall.count()) * 1e-9);
    reads.push_back(sequential_read_seconds(path));
    computes.push_back(static_cast<double>(from_memory.run().devices.at(0).compute.count()) * 1e-9);
  }
  std::filesystem::remove(path);
  auto median = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  const double wall = median(walls);
  const double read = median(reads);
  const double compute = median(computes);
  return {{"device", device.label()},
          {"emulated", !device.info().emulation.empty()},
          {"mode", "file"},
          {"intensity", options.file_intensity},
          {"megabytes", options.file_megabytes},
          {"wall_s", wall},
          {"sequential_read_s", read},
          {"compute_s", compute},
          {"ratio_to_slower", wall / std::max(read, compute)},
          {"repeats", options.repeats}};
}

void print_file_row(const nlohmann::json& row) {
  std::printf("%-44s file    %9d %9.2f  read alone %.2f ms, compute alone %.2f ms: %.2fx the slower\n",
              row["device"].get<std::string>().c_str(), row["intensity"].get<int>(), row["wall_s"].get<double>() * 1e3,
              row["sequential_read_s"].get<double>() * 1e3, row["compute_s"].get<double>() * 1e3,
              row["ratio_to_slower"].get<double>());
}

void print_table(const nlohmann::json& results) {
  std::printf("%-44s %-7s %9s %9s %9s %10s %9s %8s %8s  %s\n", "device", "mode", "intensity", "wall ms", "ideal ms",
              "efficiency", "bound ms", "vs bound", "speedup", "bound by");
  for (const auto& row : results) {
    if (row["mode"] == "file") {
      print_file_row(row);
      continue;
    }
    std::printf("%-44s %-7s %9d %9.2f %9.2f %10.3f %9.2f %8.3f %8.2f  %s\n", row["device"].get<std::string>().c_str(),
                row["mode"].get<std::string>().c_str(), row["intensity"].get<int>(),
                row["wall_s"].get<double>() * 1e3, row["ideal_s"].get<double>() * 1e3,
                row["efficiency"].get<double>(), row["bound_s"].get<double>() * 1e3,
                row["bound_efficiency"].get<double>(), row["speedup_vs_serial"].get<double>(),
                row["bound_by"].get<std::string>().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"alloy streaming: pipelined against serial copy-compute-copy"};
  app.add_option("--megabytes", options.megabytes,
                 "input size in MiB (the output is as large); default: 64 on CPU devices, 1024 on GPUs, "
                 "8192 on the emulated device");
  app.add_option("--intensities", options.intensities, "multiply-adds per element to sweep")->delimiter(',');
  app.add_option("--repeats", options.repeats, "runs per configuration, interleaved; the median is reported")
      ->check(CLI::PositiveNumber);
  app.add_option("--backend", options.device_filter, "only devices of this backend (opencl, cuda, hip, emulated)");
  app.add_option("--file-megabytes", options.file_megabytes, "size of the file-source case in MiB; 0 skips it");
  app.add_option("--file-intensity", options.file_intensity, "multiply-adds per element in the file-source case");
  app.add_option("--file-folder", options.file_folder, "where the file-source case writes its file");
  app.add_flag("--json", options.json, "one JSON object per configuration instead of a table");
  CLI11_PARSE(app, argc, argv);

  // The emulated device joins unless the caller chose another model.
  setenv("ALLOY_EMULATED_DEVICES", emulated_model, 0);
  alloy::emulation::KernelModel model;
  model.seconds = [](const alloy::emulation::KernelLaunch& launch) {
    return emulated_seconds_per_iteration * static_cast<double>(launch.scalar<int>(3)) *
           static_cast<double>(launch.scalar<std::uint64_t>(2));
  };
  alloy::emulation::define_kernel("intensity", model);

  try {
    alloy::Runtime runtime;
    nlohmann::json results = nlohmann::json::array();
    for (alloy::Device* device : runtime.devices()) {
      if (!options.device_filter.empty() && device->info().backend != options.device_filter) continue;
      for (auto& row : measure(runtime, *device, options)) results.push_back(row);
      if (options.file_megabytes != 0) results.push_back(measure_file(runtime, *device, options));
    }
    if (results.empty()) {
      std::cerr << "bench_streaming: no device to measure\n";
      return 1;
    }
    if (options.json) {
      std::cout << results.dump(2) << '\n';
    } else {
      print_table(results);
    }
  } catch (const std::exception& error) {
    std::cerr << "bench_streaming: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
