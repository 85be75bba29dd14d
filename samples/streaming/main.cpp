// Streams a file four times larger than the device memory it may use through
// every device, chunk by chunk, into another file, and prints what the
// pipeline measured: how much of the copying hid behind the computing.
//
//   build/default/bin/streaming [megabytes] [folder]
//   ALLOY_EMULATED_DEVICES=pcie5 build/default/bin/streaming 1024   # also on a modelled PCIe 5 GPU
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "alloy/alloy.hpp"
#include "alloy/emulated_kernels.hpp"
#include "embedded/scale_clamped_source.hpp"

namespace {

constexpr float lo = -1.0f;
constexpr float hi = 1.0f;
constexpr float scale = 0.5f;  // a power of two: the device's result is exact

float input_value(std::size_t i) { return static_cast<float>(static_cast<int>(i % 4001) - 2000) * 0.001f; }
float expected_value(std::size_t i) { return std::clamp(input_value(i), lo, hi) * scale; }

/// Writes `count` floats to `path`, a block at a time.
void write_input(const std::filesystem::path& path, std::size_t count) {
  std::ofstream out(path, std::ios::binary);
  std::vector<float> block(1 << 16);
  for (std::size_t done = 0; done < count; done += block.size()) {
    const std::size_t n = std::min(block.size(), count - done);
    for (std::size_t i = 0; i < n; ++i) block[i] = input_value(done + i);
    out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(n * sizeof(float)));
  }
}

/// The first element of `path` that differs from the expected result, or `count`.
std::size_t first_wrong(const std::filesystem::path& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::vector<float> block(1 << 16);
  for (std::size_t done = 0; done < count; done += block.size()) {
    const std::size_t n = std::min(block.size(), count - done);
    in.read(reinterpret_cast<char*>(block.data()), static_cast<std::streamsize>(n * sizeof(float)));
    if (!in) return done;
    for (std::size_t i = 0; i < n; ++i) {
      if (block[i] != expected_value(done + i)) return done + i;
    }
  }
  return count;
}

/// What the kernel does, for emulated devices (which run no device code).
void define_emulated_model() {
  alloy::emulation::KernelModel model;
  model.run = [](const alloy::emulation::KernelLaunch& launch) {
    const float* x = launch.pointer<float>(0);
    float* y = launch.pointer<float>(1);
    const auto length = launch.scalar<std::uint64_t>(2);
    for (std::uint64_t i = 0; i < length; ++i) {
      y[i] = std::clamp(x[i], launch.scalar<float>(3), launch.scalar<float>(4)) * launch.scalar<float>(5);
    }
  };
  alloy::emulation::define_kernel("scale_clamped", model);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t megabytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  const std::filesystem::path folder = argc > 2 ? std::filesystem::path(argv[2]) : std::filesystem::temp_directory_path();
  const std::size_t count = megabytes * (std::size_t{1} << 20) / sizeof(float);
  const std::filesystem::path input = folder / "alloy-streaming-input.bin";
  const std::filesystem::path output = folder / "alloy-streaming-output.bin";
  define_emulated_model();
  try {
    write_input(input, count);
    alloy::Runtime runtime;
    alloy::ExecutorOptions options;
    // A quarter of the file per device: it cannot be copied up whole.
    options.device_memory_limit = std::max<std::size_t>(megabytes / 4, 1) << 20;
    alloy::Executor executor(runtime, options);
    std::printf("streaming %zu MiB from %s through %zu device(s), each limited to %zu MiB\n", megabytes,
                input.c_str(), executor.devices().size(), options.device_memory_limit >> 20);

    alloy::Pipeline pipeline(executor, count);
    const auto x = pipeline.input_file<float>(input);
    const auto y = pipeline.output_file<float>(output);
    const alloy::ProgramSource source{"scale_clamped.cl", std::string(alloy_kernels::scale_clamped_source), ""};
    pipeline.kernel(source, "scale_clamped", {x, y, alloy::chunk_length, lo, hi, scale});
    pipeline.run();  // compiles the kernel and chooses the chunk size
    const alloy::PipelineReport report = pipeline.run();
    std::printf("%s", report.to_string().c_str());

    const std::size_t wrong = first_wrong(output, count);
    std::filesystem::remove(input);
    std::filesystem::remove(output);
    if (wrong != count) {
      std::fprintf(stderr, "streaming: element %zu of the output is wrong\n", wrong);
      return 1;
    }
    std::printf("all %zu results match the host's\n", count);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "streaming: %s\n", error.what());
    std::error_code ignored;
    std::filesystem::remove(input, ignored);
    std::filesystem::remove(output, ignored);
    return 1;
  }
  return 0;
}
