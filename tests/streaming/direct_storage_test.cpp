// GPUDirect Storage end to end on emulated devices (storage=<GB/s>) and
// OpenCL ones: every reason a device does not read a file directly, reads
// straight into device memory, Graph::read_file on both routes with exact
// results and failures that leave the executor usable, and the Pipeline's
// route choice and its report line. Each case makes its own Runtime, as the
// emulated devices' model is read when one is made.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "streaming_kernels.hpp"
#include "support/scoped_environment.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const bool models_defined = (define_streaming_kernel_models(), true);

/// A Runtime over one backend's devices, emulated ones following `model`.
struct OwnRuntime {
  OwnRuntime(const char* backend, const char* model)
      : backends("ALLOY_BACKENDS", backend), emulated("ALLOY_EMULATED_DEVICES", model) {}

  ScopedEnvironment backends;
  ScopedEnvironment emulated;
  Runtime runtime;

  /// Its devices; skips (returning none) where the backend has fewer than `count`.
  std::vector<Device*> devices(std::size_t count = 1) {
    std::vector<Device*> found = runtime.devices();
    if (found.size() < count) {
      std::string why = std::to_string(found.size()) + " devices";
      for (const BackendStatus& status : runtime.backends()) {
        if (!status.reason.empty()) why += "; " + status.name + ": " + status.reason;
      }
      skip("needs " + std::to_string(count) + " devices of " + backends_name() + " (" + why + ")");
      return {};
    }
    return found;
  }

  std::string backends_name() const { return std::getenv("ALLOY_BACKENDS"); }
};

bool on_memory_file_system(const std::filesystem::path& path) {
  struct statfs system {};
  return ::statfs(path.c_str(), &system) == 0 && (system.f_type == TMPFS_MAGIC || system.f_type == RAMFS_MAGIC);
}

/// A folder in the test's working folder (the build tree): /tmp may be a
/// memory file system, which GPUDirect Storage refuses.
struct FileFolder {
  std::filesystem::path path =
      std::filesystem::current_path() / ("direct-storage-" + std::to_string(std::random_device{}()));
  FileFolder() { std::filesystem::create_directories(path); }
  ~FileFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  FileFolder(const FileFolder&) = delete;
  FileFolder& operator=(const FileFolder&) = delete;

  /// False, skipping, where the folder is on a memory file system.
  bool on_storage() const {
    if (!on_memory_file_system(path)) return true;
    skip(path.string() + " is on a memory file system, which GPUDirect Storage refuses");
    return false;
  }
};

std::vector<int> counting(std::size_t count, int first = 0) {
  std::vector<int> values(count);
  std::iota(values.begin(), values.end(), first);
  return values;
}

std::filesystem::path write_ints(const std::filesystem::path& path, const std::vector<int>& values) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(int)));
  return path;
}

/// What the affine kernel gives (a = 2, b = 1, offset 0).
std::vector<int> affine(const std::vector<int>& x) {
  std::vector<int> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i] + 1 + static_cast<int>(i);
  return y;
}

std::string reason_on(Device& device, const std::filesystem::path& path, InputFileOptions options = {}) {
  const std::shared_ptr<InputFile> file = InputFile::open(path, options);
  const DirectFileOpening& opening = file->direct(device);
  return opening.file ? std::string() : opening.reason;
}

ExecutorOptions over(std::vector<Device*> devices) {
  ExecutorOptions options;
  options.devices = std::move(devices);
  return options;
}

/// Reads ints [first, first + count) of `file` into a buffer on `device`
/// with Graph::read_file, runs affine over it there, and gives the result.
std::vector<int> read_and_compute(Executor& executor, const std::shared_ptr<const InputFile>& file,
                                  std::size_t first, std::size_t count, std::size_t device) {
  Buffer<int> x(count);
  Buffer<int> y(count);
  Graph graph;
  TaskOptions read_options;
  read_options.device = device;
  graph.read_file(file, first * sizeof(int), x.whole(), read_options);
  TaskOptions kernel_options;
  kernel_options.device = device;
  graph.kernel(streaming_kernels, "affine", LaunchRange(Extent(count)),
               {read(x), write(y), std::uint64_t{0}, std::uint64_t{count}, 2, 1}, kernel_options);
  executor.run(graph).wait();
  executor.synchronize(y);
  return {y.host().begin(), y.host().end()};
}

}  // namespace

TEST_CASE("DirectStorage.Reasons.opencl_devices_read_through_host_memory") {
  OwnRuntime own("opencl", "");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  FileFolder folder;
  const std::string reason = reason_on(*devices[0], write_ints(folder.path / "x.bin", counting(16)));
  CHECK(reason == devices[0]->label() +
                      ": the opencl backend reads no file into device memory directly: GPUDirect Storage (cuFile) "
                      "is NVIDIA's, for CUDA devices");
}

TEST_CASE("DirectStorage.Reasons.emulated_devices_without_storage_are_refused_by_the_driver_open") {
  OwnRuntime own("emulated", "pcie5");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  FileFolder folder;
  const std::string reason = reason_on(*devices[0], write_ints(folder.path / "x.bin", counting(16)));
  CHECK(reason.find(devices[0]->label() + ": cuFileDriverOpen failed with CU_FILE_DRIVER_NOT_INITIALIZED "
                                          "(emulated) (5001): nvidia-fs driver is not loaded") == 0);
  CHECK(reason.find("modprobe nvidia_fs") != std::string::npos);
  CHECK(reason.find("storage=<GB/s>") != std::string::npos);
}

TEST_CASE("DirectStorage.Reasons.emulated_hip_devices_have_none") {
  OwnRuntime own("emulated", "pcie5,flavor=hip,storage=5");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  FileFolder folder;
  CHECK(reason_on(*devices[0], write_ints(folder.path / "x.bin", counting(16))).find(
            ": HIP devices read no file into device memory directly (emulated, flavor=hip)") != std::string::npos);
}

TEST_CASE("DirectStorage.Reasons.a_memory_file_system_is_refused_by_the_handle_register") {
  if (!on_memory_file_system("/dev/shm")) {
    skip("/dev/shm is not a memory file system here: none at hand to be refused");
    return;
  }
  OwnRuntime own("emulated", "pcie5,storage=5");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  const std::filesystem::path path = "/dev/shm/alloy-direct-storage-" + std::to_string(::getpid()) + ".bin";
  write_ints(path, counting(1024));
  const std::string reason = reason_on(*devices[0], path);
  std::filesystem::remove(path);
  CHECK(reason.find(path.string() + ": cuFileHandleRegister failed with CU_FILE_IO_NOT_SUPPORTED (emulated) (5008)") !=
        std::string::npos);
}

TEST_CASE("DirectStorage.Reasons.a_file_system_without_direct_io_is_named") {
  if (const int fd = ::open("/proc/cpuinfo", O_RDONLY | O_DIRECT); fd >= 0) {
    ::close(fd);
    skip("/proc/cpuinfo opens with O_DIRECT here: no file system at hand refuses it");
    return;
  }
  OwnRuntime own("emulated", "pcie5,storage=5");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  CHECK(reason_on(*devices[0], "/proc/cpuinfo")
            .find("/proc/cpuinfo cannot be opened with O_DIRECT (Invalid argument)") != std::string::npos);
}

TEST_CASE("DirectStorage.Reasons.turned_off_by_the_environment_or_for_the_file") {
  OwnRuntime own("emulated", "pcie5,storage=5");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  FileFolder folder;
  const std::filesystem::path path = write_ints(folder.path / "x.bin", counting(16));
  CHECK(reason_on(*devices[0], path, {.direct = false}) ==
        devices[0]->label() + ": turned off for this file (InputFileOptions::direct)");
  {
    ScopedEnvironment off("ALLOY_GPU_DIRECT_STORAGE", "0");
    CHECK(reason_on(*devices[0], path) == devices[0]->label() + ": turned off by ALLOY_GPU_DIRECT_STORAGE=0");
  }
  ScopedEnvironment misspelt("ALLOY_GPU_DIRECT_STORAGE", "sometimes");
  CHECK_THROWS_AS(InputFile::open(path), InvalidArgument);
}

TEST_CASE("DirectStorage.Reads.land_exactly_in_emulated_device_memory_in_the_modelled_time") {
  // 1 GB/s: 4 MiB take 4 ms at least.
  OwnRuntime own("emulated", "pcie5,storage=1");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  FileFolder folder;
  if (!folder.on_storage()) return;
  const std::size_t count = std::size_t{1} << 20;
  const std::vector<int> values = counting(count, 5);
  auto file = InputFile::open(write_ints(folder.path / "x.bin", values));
  Device& device = *devices[0];
  REQUIRE_MESSAGE(file->direct(device).file, file->direct(device).reason);
  CHECK(file->direct(device).file->how() == "GPUDirect Storage (cuFile (emulated))");
  auto buffer = device.allocate(count * sizeof(int));
  const auto started = std::chrono::steady_clock::now();
  file->read(0, *buffer, 0, count * sizeof(int));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(4));
  // An unaligned piece over it: ints [1001, 3001) to int 7 on.
  file->read(1001 * sizeof(int), *buffer, 7 * sizeof(int), 2000 * sizeof(int));
  std::vector<int> back(count);
  auto queue = device.create_queue();
  queue->read(*buffer, 0, back.data(), count * sizeof(int));
  queue->finish();
  for (std::size_t i = 0; i < count; ++i) {
    const int expected = i >= 7 && i < 2007 ? values[i - 7 + 1001] : values[i];
    REQUIRE(back[i] == expected);
  }
  CHECK_THROWS_WITH_AS(file->read(count * sizeof(int) - 4, *buffer, 0, 8), doctest::Contains("read within it"),
                       Error);
}

TEST_CASE("DirectStorage.Tasks.a_read_lands_in_the_device_replica_and_kernels_use_it") {
  REQUIRE(models_defined);
  OwnRuntime own("emulated", "pcie5,devices=2,storage=5,jitter=50");
  const std::vector<Device*> devices = own.devices(2);
  if (devices.empty()) return;
  FileFolder folder;
  if (!folder.on_storage()) return;
  const std::vector<int> values = counting(50000, -20000);
  auto file = InputFile::open(write_ints(folder.path / "x.bin", values));
  Executor executor(own.runtime, over(devices));
  const std::vector<int> part(values.begin() + 1000, values.begin() + 31000);
  CHECK(read_and_compute(executor, file, 1000, 30000, 1) == affine(part));
  // Both tasks ran on device 1: the read was a device's, not a host task.
  CHECK(executor.tasks_per_device() == std::vector<std::size_t>{0, 2});
  // The replica holds the bytes; the host copy follows when asked.
  Buffer<int> x(values.size());
  TaskOptions on_first;
  on_first.device = 0;
  executor.read_file(file, 0, x.whole(), on_first).wait();
  executor.synchronize(x);
  CHECK(std::vector<int>(x.host().begin(), x.host().end()) == values);
}

TEST_CASE("DirectStorage.Tasks.without_direct_reads_the_bytes_go_through_host_memory") {
  REQUIRE(models_defined);
  OwnRuntime own("opencl", "");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  FileFolder folder;
  const std::vector<int> values = counting(20000, 3);
  auto file = InputFile::open(write_ints(folder.path / "x.bin", values));
  Executor executor(own.runtime, over({devices[0]}));
  CHECK(read_and_compute(executor, file, 0, values.size(), 0) == affine(values));
  CHECK(executor.tasks_per_device() == std::vector<std::size_t>{1});  // the kernel only
  // Into borrowed memory, which stays in host memory.
  std::vector<int> borrowed(100, 0);
  auto lent = Buffer<int>::borrow(std::span<int>(borrowed));
  executor.read_file(file, 400, lent.whole()).wait();
  CHECK(borrowed == std::vector<int>(values.begin() + 100, values.begin() + 200));
}

TEST_CASE("DirectStorage.Tasks.a_range_past_the_end_fails_the_task_and_the_executor_goes_on") {
  for (const char* backend : {"emulated", "opencl"}) {
    CAPTURE(backend);
    OwnRuntime own(backend, "pcie5,storage=5");
    const std::vector<Device*> devices = own.devices();
    if (devices.empty()) continue;
    FileFolder folder;
    if (!folder.on_storage()) return;
    const std::vector<int> values = counting(1000);
    auto file = InputFile::open(write_ints(folder.path / "x.bin", values));
    Executor executor(own.runtime, over({devices[0]}));
    Buffer<int> x(600);
    TaskOptions options;
    options.device = 0;
    options.name = "too far";
    // Past the end by 2000 ints: the direct read's words, or the host read's.
    const std::string past = std::string(backend) == "emulated" ? "the file had 4000 bytes" : "which has 4000 bytes";
    std::string failure;
    try {
      executor.read_file(file, 2000, x.whole(), options).wait();
    } catch (const Error& error) {
      failure = error.what();
    }
    CHECK(failure.find("'too far' (file read) failed") != std::string::npos);
    CHECK_MESSAGE(failure.find(past) != std::string::npos, failure);
    // Tasks on the failed one's bytes do not run (they depend on it); others do.
    Buffer<int> y(600);
    executor.read_file(file, 1600, y.whole(), options).wait();
    executor.synchronize(y);
    CHECK(std::vector<int>(y.host().begin(), y.host().end()) == std::vector<int>(values.begin() + 400, values.end()));
    CHECK_NOTHROW(executor.wait());
  }
}

TEST_CASE("DirectStorage.Tasks.reads_under_memory_pressure_keep_every_result") {
  REQUIRE(models_defined);
  OwnRuntime own("emulated", "pcie5,storage=20,jitter=50");
  const std::vector<Device*> devices = own.devices();
  if (devices.empty()) return;
  FileFolder folder;
  if (!folder.on_storage()) return;
  const std::size_t count = 64 << 10;  // 256 KiB per buffer
  const std::vector<int> values = counting(8 * count, 1);
  auto file = InputFile::open(write_ints(folder.path / "x.bin", values));
  ExecutorOptions options = over({devices[0]});
  options.device_memory_limit = 5 * count * sizeof(int);  // two pairs of buffers and a bit: evictions
  Executor executor(own.runtime, options);
  std::vector<Buffer<int>> xs, ys;
  Graph graph;
  for (std::size_t i = 0; i < 8; ++i) {
    xs.emplace_back(count);
    ys.emplace_back(count);
    graph.read_file(file, i * count * sizeof(int), xs.back().whole());
    graph.kernel(streaming_kernels, "affine", LaunchRange(Extent(count)),
                 {read(xs.back()), write(ys.back()), std::uint64_t{0}, std::uint64_t{count}, 2, 1});
  }
  executor.run(graph).wait();
  for (std::size_t i = 0; i < 8; ++i) {
    executor.synchronize(ys[i]);
    const std::vector<int> part(values.begin() + static_cast<std::ptrdiff_t>(i * count),
                                values.begin() + static_cast<std::ptrdiff_t>((i + 1) * count));
    REQUIRE(std::vector<int>(ys[i].host().begin(), ys[i].host().end()) == affine(part));
  }
}

TEST_CASE("DirectStorage.Pipeline.with_storage_the_file_goes_straight_into_the_slots") {
  REQUIRE(models_defined);
  OwnRuntime own("emulated", "pcie5,devices=2,storage=20,jitter=50");
  const std::vector<Device*> devices = own.devices(2);
  if (devices.empty()) return;
  FileFolder folder;
  if (!folder.on_storage()) return;
  Executor executor(own.runtime, over(devices));
  // Chunks given, and chosen by measuring the first ones (whose copy-in lane
  // is then empty); the last chunk ends mid-block.
  for (const std::size_t chunk : {std::size_t{4096 * 8}, std::size_t{0}}) {
    CAPTURE(chunk);
    const std::size_t n = (chunk != 0 ? 300000 : 3000000) + 7;
    const std::vector<int> x = counting(n, -150000);
    write_ints(folder.path / "x.bin", x);
    std::vector<int> y(n, 0);
    PipelineOptions options;
    options.chunk_elements = chunk;
    Pipeline pipeline(executor, n, options);
    const auto in = pipeline.input_file<int>(folder.path / "x.bin");
    const auto out = pipeline.output(std::span<int>(y));
    pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, 2, 1});
    const std::vector<std::size_t> tasks_before = executor.tasks_per_device();
    const PipelineReport report = pipeline.run();
    INFO(report.to_string());
    REQUIRE(y == affine(x));
    REQUIRE(!report.arrays.empty());
    CHECK(report.arrays[0] == "input 0: file " + (folder.path / "x.bin").string() +
                                  " read straight into device memory (GPUDirect Storage (cuFile (emulated)))");
    CHECK(report.host_copies.count() > 0);  // the reads, on host threads
    // Per chunk a read, a kernel and a copy-out, all on the chunk's device.
    const std::vector<std::size_t> tasks = executor.tasks_per_device();
    CHECK(tasks[0] + tasks[1] - tasks_before[0] - tasks_before[1] == 3 * report.chunks);
  }
}

TEST_CASE("DirectStorage.Pipeline.without_storage_the_file_goes_through_staging_and_says_why") {
  REQUIRE(models_defined);
  for (const char* model : {"pcie5,devices=2,jitter=50", "pcie5,devices=2,storage=5,jitter=50"}) {
    const bool storage = std::string(model).find("storage") != std::string::npos;
    CAPTURE(model);
    // With storage, a file on a memory file system is refused.
    if (storage && !on_memory_file_system("/dev/shm")) {
      MESSAGE("/dev/shm is not a memory file system here: none at hand to be refused");
      continue;
    }
    OwnRuntime own("emulated", model);
    const std::vector<Device*> devices = own.devices(2);
    if (devices.empty()) return;
    FileFolder folder;
    const std::filesystem::path path =
        storage ? std::filesystem::path("/dev/shm/alloy-direct-storage-" + std::to_string(::getpid()) + ".bin")
                : folder.path / "x.bin";
    Executor executor(own.runtime, over(devices));
    const std::size_t n = 100000;
    const std::vector<int> x = counting(n, 11);
    write_ints(path, x);
    std::vector<int> y(n, 0);
    PipelineOptions options;
    options.chunk_elements = 4096 * 4;
    std::string line;
    {
      Pipeline pipeline(executor, n, options);
      const auto in = pipeline.input_file<int>(path);
      const auto out = pipeline.output(std::span<int>(y));
      pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, 2, 1});
      const PipelineReport report = pipeline.run();
      INFO(report.to_string());
      REQUIRE(y == affine(x));
      line = report.arrays.at(0);
    }
    if (storage) std::filesystem::remove(path);
    CHECK(line.find("input 0: file " + path.string() + " through pinned staging, ") == 0);
    CHECK(line.find(" (GPUDirect Storage not used: " + devices[0]->label() + ": ") != std::string::npos);
    CHECK(line.find(storage ? "cuFileHandleRegister failed with CU_FILE_IO_NOT_SUPPORTED"
                            : "cuFileDriverOpen failed with CU_FILE_DRIVER_NOT_INITIALIZED") != std::string::npos);
  }
}

}  // namespace alloy::test
