// Pipelines give exactly what the unpipelined computation gives, whatever
// the sizes, depth, devices and timing; failures name the chunk and leave
// the executor usable; slots that cannot fit are refused.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <numeric>
#include <random>

#include "streaming_kernels.hpp"
#include "support/random_seed.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

const bool models_defined = (define_streaming_kernel_models(), true);

std::vector<int> random_values(std::size_t count, std::mt19937_64& random) {
  std::uniform_int_distribution<int> values(-1000, 1000);
  std::vector<int> data(count);
  for (int& value : data) value = values(random);
  return data;
}

/// What the affine kernel gives for the whole array at once.
std::vector<int> affine_reference(const std::vector<int>& x, int a, int b) {
  std::vector<int> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + b + static_cast<int>(i);
  return y;
}

PipelineOptions pipeline_options(std::size_t chunk, unsigned depth, std::vector<std::size_t> devices) {
  PipelineOptions options;
  options.chunk_elements = chunk;
  options.depth = depth;
  options.devices = std::move(devices);
  return options;
}

/// One run of the affine kernel over `n` ones on the first device, in
/// chunks of `chunk`, direct from the caller's memory: no host lane
/// (staging) takes the bound from the device's.
PipelineReport direct_affine_run(Executor& executor, std::size_t n, std::size_t chunk, unsigned depth) {
  std::vector<int> x(n, 1);
  std::vector<int> y(n);
  PipelineOptions options = pipeline_options(chunk, depth, {0});
  options.host_memory = HostMemoryRoute::direct;
  Pipeline pipeline(executor, n, options);
  const auto in = pipeline.input(std::span<const int>(x));
  const auto out = pipeline.output(std::span<int>(y));
  pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, 1, 0});
  return pipeline.run();
}

std::vector<std::size_t> all_devices(const Executor& executor) {
  std::vector<std::size_t> devices(executor.devices().size());
  std::iota(devices.begin(), devices.end(), 0);
  return devices;
}

}  // namespace

TEST_CASE("Pipeline.Results.match_the_unpipelined_computation_for_random_shapes") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  const std::uint64_t seed = random_seed();
  MESSAGE("seed " << seed << " (replay with ALLOY_TEST_SEED)");
  std::mt19937_64 random(seed);
  const char* cases_text = std::getenv("ALLOY_PIPELINE_CASES");
  const int cases = cases_text != nullptr ? std::atoi(cases_text) : 24;
  for (int c = 0; c < cases; ++c) {
    const std::size_t chunk = std::uniform_int_distribution<std::size_t>(1, 300)(random);
    // Edge sizes first, then random ones up to ten chunks.
    const std::size_t edges[] = {0, 1, chunk - 1, chunk, chunk + 1, chunk / 2};
    const std::size_t n = c < 6 ? edges[c] : std::uniform_int_distribution<std::size_t>(0, 10 * chunk)(random);
    const unsigned depth = std::uniform_int_distribution<unsigned>(2, 3)(random);
    const bool one_device = executor.devices().size() == 1 || random() % 2 == 0;
    CAPTURE(c);
    CAPTURE(n);
    CAPTURE(chunk);
    CAPTURE(depth);
    CAPTURE(one_device);
    const std::vector<int> x = random_values(n, random);
    std::vector<int> y(n, 7);
    const PipelineOptions options =
        pipeline_options(chunk, depth, one_device ? std::vector<std::size_t>{0} : all_devices(executor));
    Pipeline pipeline(executor, n, options);
    const PipelineInput in = pipeline.input(std::span<const int>(x));
    const PipelineOutput out = pipeline.output(std::span<int>(y));
    pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, 3, -5});
    const PipelineReport report = pipeline.run();
    CHECK(report.chunks == (n + chunk - 1) / chunk);
    REQUIRE(y == affine_reference(x, 3, -5));
  }
}

TEST_CASE("Pipeline.Results.several_inputs_and_outputs_of_different_types") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  std::mt19937_64 random(random_seed());
  const std::size_t n = 1000;
  const std::vector<int> a = random_values(n, random);
  std::vector<float> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<float>(a[(i * 7) % n]) + 0.25f;
  std::vector<int> sum(n);
  std::vector<float> scaled(n);
  Pipeline pipeline(executor, n, pipeline_options(96, 3, all_devices(executor)));
  const auto in_a = pipeline.input(std::span<const int>(a));
  const auto in_b = pipeline.input(std::span<const float>(b));
  const auto out_sum = pipeline.output(std::span<int>(sum));
  const auto out_scaled = pipeline.output(std::span<float>(scaled));
  pipeline.kernel(streaming_kernels, "combine_two", {in_a, in_b, out_sum, out_scaled, chunk_length}, 32);
  pipeline.run();
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(sum[i] == a[i] + static_cast<int>(b[i]));
    REQUIRE(scaled[i] == b[i] * 0.5f);
  }
}

TEST_CASE("Pipeline.Reduction.partials_per_chunk_combine_exactly") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  std::mt19937_64 random(random_seed());
  const std::size_t n = 2345;
  const std::vector<int> x = random_values(n, random);
  Pipeline pipeline(executor, n, pipeline_options(200, 2, all_devices(executor)));
  const auto in = pipeline.input(std::span<const int>(x));
  const auto partial = pipeline.reduction<std::int64_t>(2);
  // A graph per chunk: one work-item sums the chunk.
  pipeline.each_chunk([&](Graph& graph, const Chunk& chunk) {
    graph.kernel(streaming_kernels, "sum_and_max", {Extent(1)},
                 {read(chunk.in(in)), write(chunk.partial(partial)), std::uint64_t{chunk.length}},
                 chunk.options("sum_and_max"));
  });
  pipeline.run();
  const std::vector<std::int64_t> sums =
      pipeline.reduce<std::int64_t>(partial, 0, [](std::int64_t a, std::int64_t b) { return a + b; });
  const std::vector<std::int64_t> largest = pipeline.reduce<std::int64_t>(
      partial, INT64_MIN, [](std::int64_t a, std::int64_t b) { return std::max(a, b); });
  // reduce folds each position over the chunks: sums[0] is the total; the
  // maximum of position 1 is the largest element.
  CHECK(sums[0] == std::accumulate(x.begin(), x.end(), std::int64_t{0}));
  CHECK(largest[1] == *std::max_element(x.begin(), x.end()));
}

TEST_CASE("Pipeline.Failures.a_failing_chunk_is_named_and_the_executor_stays_usable") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  const std::size_t n = 1000;
  const std::size_t chunk = 100;
  std::vector<int> x(n);
  std::iota(x.begin(), x.end(), 0);
  std::vector<int> y(n, -1);
  Pipeline pipeline(executor, n, pipeline_options(chunk, 2, {0}));
  const auto in = pipeline.input(std::span<const int>(x));
  const auto out = pipeline.output(std::span<int>(y));
  pipeline.each_chunk([&](Graph& graph, const Chunk& c) {
    // Chunk 3 names a kernel the program does not have: its task fails.
    graph.kernel(streaming_kernels, c.index == 3 ? "no_such_kernel" : "affine", {Extent(c.length)},
                 {read(c.in(in)), write(c.out(out)), std::uint64_t{c.offset}, std::uint64_t{c.length}, 1, 0},
                 c.options("affine"));
  });
  std::string message;
  try {
    pipeline.run();
  } catch (const Error& error) {
    message = error.what();
  }
  INFO(message);
  CHECK(message.find("chunk 3: affine") != std::string::npos);
  CHECK(message.find("no_such_kernel") != std::string::npos);
  // Chunks before the failure are done; its own chunk is untouched; later
  // ones are either done or (waiting on the failed chunk's slot) untouched.
  const std::vector<int> expected = affine_reference(x, 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (i < 3 * chunk) REQUIRE(y[i] == expected[i]);
    if (i >= 3 * chunk && i < 4 * chunk) REQUIRE(y[i] == -1);
    if (i >= 4 * chunk) REQUIRE((y[i] == expected[i] || y[i] == -1));
  }
  // The same executor runs the next pipeline.
  std::vector<int> again(n, 0);
  Pipeline next(executor, n, pipeline_options(chunk, 2, {0}));
  const auto next_in = next.input(std::span<const int>(x));
  const auto next_out = next.output(std::span<int>(again));
  next.kernel(streaming_kernels, "affine", {next_in, next_out, chunk_offset, chunk_length, 1, 0});
  next.run();
  CHECK(again == expected);
}

TEST_CASE("Pipeline.Memory.slots_that_do_not_fit_are_refused_with_both_sizes") {
  if (!have_devices(1)) return;
  ExecutorOptions options = on_selected_devices();
  options.device_memory_limit = std::size_t{1} << 20;
  Executor executor(runtime(), options);
  const std::size_t n = std::size_t{1} << 20;
  std::vector<int> x(n);
  std::vector<int> y(n);
  Pipeline pipeline(executor, n, pipeline_options(n, 2, {0}));
  pipeline.input(std::span<const int>(x));
  pipeline.output(std::span<int>(y));
  pipeline.each_chunk([](Graph&, const Chunk&) {});
  std::string message;
  try {
    pipeline.run();
  } catch (const InvalidArgument& error) {
    message = error.what();
  }
  INFO(message);
  CHECK(message.find("16 MiB") != std::string::npos);  // 2 slots of 8 MiB
  CHECK(message.find("1 MiB") != std::string::npos);   // what the executor may use
}

TEST_CASE("Pipeline.Options.automatic_chunks_are_measured_then_kept") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  std::mt19937_64 random(random_seed());
  const std::size_t n = (std::size_t{1} << 22) + 12345;
  const std::vector<int> x = random_values(n, random);
  std::vector<int> y(n);
  Pipeline pipeline(executor, n, pipeline_options(0, 0, all_devices(executor)));
  const auto in = pipeline.input(std::span<const int>(x));
  const auto out = pipeline.output(std::span<int>(y));
  pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, 2, 1});
  CHECK(pipeline.chunk_elements() == 0);  // chosen by the first run
  const PipelineReport first = pipeline.run();
  CHECK(y == affine_reference(x, 2, 1));
  INFO(first.to_string());
  CHECK(first.chunking.find("measured on the first") == 0);
  const std::size_t chunk = pipeline.chunk_elements();
  CHECK(chunk >= 1);
  CHECK((pipeline.depth() == 2 || pipeline.depth() == 3));
  for (std::size_t d = 0; d < executor.devices().size(); ++d) {
    CHECK(pipeline.depth() * chunk * 2 * sizeof(int) <= executor.device_memory(d));
  }
  // The next run keeps the choice and measures nothing first.
  std::fill(y.begin(), y.end(), 0);
  const PipelineReport second = pipeline.run();
  CHECK(y == affine_reference(x, 2, 1));
  CHECK(second.chunk_elements == chunk);
  CHECK(second.chunks == (n + chunk - 1) / chunk);
}

TEST_CASE("Pipeline.Options.a_tuned_profile_sets_chunk_and_depth") {
  for_each_device([](Device& device) {
    TunableKernel tunable;
    tunable.name = "test.stream_affine";
    tunable.source = streaming_kernels;
    tunable.kernel_name = "affine";
    tunable.parameters = {{"STREAM_CHUNK", {1000, 4096}, 4096, {}}, {"STREAM_DEPTH", {2, 3}, 2, {}}};
    tunable.launch = {{0, {}, {}, {0, {}, {}}}};  // the driver picks the work-group size
    TemporaryFolder folder("stream-profile");
    const std::size_t n = 10000;
    DeviceProfile profile = DeviceProfile::for_device(device.info());
    ProfileEntry entry;
    entry.kernel = tunable.name;
    entry.source_hash = tunable.source_hash();
    entry.problem = Extent(n);
    entry.configuration = {{"STREAM_CHUNK", 1000}, {"STREAM_DEPTH", 3}};
    entry.seconds = 1e-3;
    profile.put(entry);
    write_profile(ProfileStore::file_for(folder.path, device.info()), profile);

    ProfiledRuntime tuned = runtime_with_profiles(folder.path, device);
    ExecutorOptions options;
    options.devices = {tuned.device};
    Executor executor(*tuned.runtime, options);
    std::vector<int> x(n, 4);
    std::vector<int> y(n);
    Pipeline pipeline(executor, n);
    const auto in = pipeline.input(std::span<const int>(x));
    const auto out = pipeline.output(std::span<int>(y));
    pipeline.kernel(tunable, {in, out, chunk_offset, chunk_length, 1, 0});
    const PipelineReport report = pipeline.run();
    CHECK(report.chunk_elements == 1000);
    CHECK(report.depth == 3);
    CHECK(report.chunks == 10);
    CHECK(report.chunking.find("from the profile") == 0);
    CHECK(y == affine_reference(x, 1, 0));
  });
}

TEST_CASE("Pipeline.Report.lanes_add_up_and_name_the_bound") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  const PipelineReport report = direct_affine_run(executor, 50000, 5000, 2);
  REQUIRE(report.devices.size() == 1);
  const PipelineDeviceReport& device = report.devices[0];
  CHECK(device.chunks == 10);
  CHECK(device.copy_in.count() > 0);
  CHECK(device.compute.count() > 0);
  CHECK(device.copy_out.count() > 0);
  CHECK(device.ideal >= std::max({device.copy_in, device.compute, device.copy_out}));
  CHECK(report.host_copies.count() == 0);
  CHECK(report.ideal == device.ideal);
  CHECK(report.efficiency == doctest::Approx(static_cast<double>(report.ideal.count()) / report.wall.count()));
  CHECK(report.bound_by.find(device.bound_by) == 0);
  CHECK(report.to_string().find("overlap efficiency") != std::string::npos);
}

TEST_CASE("Pipeline.Errors.a_kernel_that_does_not_compile_fails_once_before_any_chunk") {
  if (!have_devices(1)) return;
  if (!selected_devices().front()->info().emulation.empty()) {
    MESSAGE("not on an emulated device: it runs kernels from host functions, and compiles no source");
    return;
  }
  Executor executor(runtime(), on_selected_devices());
  const std::size_t n = 1 << 16;
  std::vector<int> x(n, 1);
  std::vector<int> y(n, -1);
  Pipeline pipeline(executor, n, pipeline_options(1024, 2, {0}));
  const auto in = pipeline.input(std::span<const int>(x));
  const auto out = pipeline.output(std::span<int>(y));
  // Unique text: no earlier test compiled (and failed) it.
  const ProgramSource broken{"broken_affine.cl",
                             "KERNEL void broken_affine(GLOBAL const int* in, GLOBAL int* out) { out[0] = in[0] "
                             "+ undeclared_" + std::to_string(random_seed()) + "; }",
                             ""};
  pipeline.kernel(broken, "broken_affine", {in, out});
  std::vector<std::string> warnings;
  std::mutex mutex;
  const LogSink previous = set_log_sink([&](LogLevel, std::string_view message) {
    std::lock_guard lock(mutex);
    warnings.emplace_back(message);
  });
  const ProgramCacheStats before = runtime().program_cache().stats();
  CHECK_THROWS_AS(pipeline.run(), CompileError);
  CHECK_THROWS_AS(pipeline.run(), CompileError);  // again: the error is kept, not compiled again
  const ProgramCacheStats after = runtime().program_cache().stats();
  set_log_sink(previous);
  CHECK(after.failed_compiles - before.failed_compiles == 1);
  CHECK(warnings.empty());
  CHECK(std::count(y.begin(), y.end(), -1) == static_cast<long>(n));  // nothing streamed
}

TEST_CASE("Pipeline.Errors.bad_arrays_and_options_are_refused") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  std::vector<int> short_array(9);
  Pipeline pipeline(executor, 10);
  CHECK_THROWS_AS(pipeline.input(std::span<const int>(short_array)), InvalidArgument);
  CHECK_THROWS_AS(pipeline.run(), InvalidArgument);  // nothing to do per chunk
  CHECK_THROWS_AS(pipeline.kernel(streaming_kernels, "affine", {PipelineInput{3}, PipelineOutput{0}}),
                  InvalidArgument);
  CHECK_THROWS_AS(Pipeline(executor, 10, pipeline_options(0, 2, {99})), InvalidArgument);
}

}  // namespace alloy::test

namespace alloy::test {
namespace {

void write_file(const std::filesystem::path& path, const std::vector<int>& values) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(int)));
  REQUIRE(out.good());
}

std::vector<int> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<int> values(std::filesystem::file_size(path) / sizeof(int));
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(int)));
  return values;
}

}  // namespace

TEST_CASE("Pipeline.Files.a_file_through_the_devices_into_a_file") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  std::mt19937_64 random(random_seed());
  TemporaryFolder folder("pipeline-files");
  // Sizes not a multiple of the 4 KiB block: the last chunk ends mid-block.
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{3} * 1024 * 1024 + 7}) {
    for (const std::size_t chunk : {std::size_t{0}, std::size_t{1000}}) {
      CAPTURE(n);
      CAPTURE(chunk);
      const std::vector<int> x = random_values(n, random);
      write_file(folder.path / "in.bin", x);
      Pipeline pipeline(executor, n, pipeline_options(chunk, 0, all_devices(executor)));
      const auto in = pipeline.input_file<int>(folder.path / "in.bin");
      const auto out = pipeline.output_file<int>(folder.path / "out.bin");
      pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, -2, 9});
      const PipelineReport report = pipeline.run();
      INFO(report.to_string());
      REQUIRE(read_file(folder.path / "out.bin") == affine_reference(x, -2, 9));
      REQUIRE(report.arrays.size() == 2);
      // Straight into the slots where the devices read the file directly
      // (GPUDirect Storage), else through staging, saying why not.
      const std::string& input = report.arrays[0];
      const bool direct = input.find("read straight into device memory (GPUDirect Storage") != std::string::npos;
      const bool staged = input.find("through pinned staging") != std::string::npos &&
                          input.find("(GPUDirect Storage not used: ") != std::string::npos;
      CHECK_MESSAGE(direct != staged, input);
      CHECK(report.arrays[1].find("through pinned staging, buffered writes") != std::string::npos);
    }
  }
}

TEST_CASE("Pipeline.Files.a_file_of_the_wrong_size_or_none_is_refused") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  TemporaryFolder folder("pipeline-files");
  write_file(folder.path / "short.bin", std::vector<int>(99));
  Pipeline pipeline(executor, 100);
  std::string message;
  try {
    pipeline.input_file<int>(folder.path / "short.bin");
  } catch (const InvalidArgument& error) {
    message = error.what();
  }
  CHECK(message.find("396 bytes") != std::string::npos);
  CHECK(message.find("400") != std::string::npos);
  CHECK_THROWS_AS(pipeline.input_file<int>(folder.path / "absent.bin"), Error);
  CHECK_THROWS_AS(pipeline.output_file<int>(folder.path / "no-such-folder" / "out.bin"), Error);
}

TEST_CASE("Pipeline.Files.a_missing_file_or_a_folder_is_named_as_such") {
  if (!have_devices(1)) return;
  Executor executor(runtime(), on_selected_devices());
  TemporaryFolder folder("pipeline-files");
  Pipeline pipeline(executor, 100);
  CHECK_THROWS_WITH_AS(pipeline.input_file<int>(folder.path / "absent.bin"),
                       doctest::Contains("absent.bin does not exist"), InvalidArgument);
  CHECK_THROWS_WITH_AS(pipeline.input_file<int>(folder.path), doctest::Contains(" is a directory"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(pipeline.output_file<int>(folder.path), doctest::Contains(" is a directory"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(pipeline.output_file<int>(folder.path / "no-such-folder" / "out.bin"),
                       doctest::Contains("no-such-folder does not exist"), InvalidArgument);
}

TEST_CASE("Pipeline.Report.one_chunk_of_everything_falls_short_of_the_bound") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  // 2^20 elements in one chunk: its copy-in, kernel and copy-out run one
  // after another, where chunks would overlap them. The bound fills and
  // drains with 32,768 elements (256 KiB of slots), not with this chunk.
  const std::size_t n = std::size_t{1} << 20;
  const PipelineReport report = direct_affine_run(executor, n, n, 1);
  INFO(report.to_string());
  REQUIRE(report.chunks == 1);
  const PipelineDeviceReport& device = report.devices.at(0);
  const auto shortest_lane = std::min({device.copy_in, device.compute, device.copy_out});
  REQUIRE(shortest_lane.count() > 0);
  // Overlapped, at least the shorter lanes (all but 3% of them) hide.
  CHECK(report.bound < device.copy_in + device.compute + device.copy_out - shortest_lane / 2);
  CHECK(report.bound_efficiency < 1.0);
}

TEST_CASE("Pipeline.HostMemory.every_route_gives_the_same_results") {
  if (!have_devices(1)) return;
  REQUIRE(models_defined);
  Executor executor(runtime(), on_selected_devices());
  std::mt19937_64 random(random_seed());
  const std::size_t n = 300'007;
  const std::vector<int> x = random_values(n, random);
  for (const HostMemoryRoute route : {HostMemoryRoute::automatic, HostMemoryRoute::direct,
                                      HostMemoryRoute::registered, HostMemoryRoute::staged}) {
    CAPTURE(static_cast<int>(route));
    std::vector<int> y(n, 0);
    PipelineOptions options = pipeline_options(25'000, 0, all_devices(executor));
    options.host_memory = route;
    Pipeline pipeline(executor, n, options);
    const auto in = pipeline.input(std::span<const int>(x));
    const auto out = pipeline.output(std::span<int>(y));
    pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, 5, -3});
    const PipelineReport report = pipeline.run();
    INFO(report.to_string());
    REQUIRE(y == affine_reference(x, 5, -3));
    REQUIRE(report.arrays.size() == 2);
    const std::string& line = report.arrays[0];
    if (route == HostMemoryRoute::automatic) CHECK(line.find("measured on") != std::string::npos);
    if (route == HostMemoryRoute::staged) CHECK(line.find("staged") != std::string::npos);
    // Registration exists on CUDA, HIP and emulated devices, not on OpenCL.
    if (route == HostMemoryRoute::registered) {
      const bool can = executor.devices()[0]->info().backend != "opencl";
      CHECK(line.find(can ? "registered" : "cannot register") != std::string::npos);
    }
  }
}

TEST_CASE("Pipeline.StagingCheck.a_measured_staged_route_is_checked_on_the_first_chunks") {
  if (!have_devices(1)) return;
  if (selected_devices().front()->info().emulation.empty()) {
    skip("emulated devices only: their bus can be made slow enough for memory that is not page-locked "
         "that staging is measured faster on any host");
    return;
  }
  REQUIRE(models_defined);
  // Pageable transfers at 0.01 GB/s against 50 pinned, and registering at
  // 0.1 GB/s: staging through host threads is measured far faster, by more
  // than the 0.9 a sanitizer's noise can ask of a route (host copies run at
  // about 1 GB/s under ThreadSanitizer). This
  // group runs in a process of its own, whose emulated devices now follow
  // this model (a runtime reads it again when made).
  REQUIRE(setenv("ALLOY_EMULATED_DEVICES", "pcie5,pageable=0.0002,register=0.1,memory=256M", 1) == 0);
  Runtime slow_pageable;
  ExecutorOptions executor_options;
  for (Device* device : slow_pageable.devices()) {
    if (!device->info().emulation.empty() && executor_options.devices.empty()) executor_options.devices = {device};
  }
  REQUIRE(executor_options.devices.size() == 1);
  Executor executor(slow_pageable, executor_options);
  std::mt19937_64 random(random_seed());
  const std::size_t n = std::size_t{1} << 18;  // 1 MiB: the route's sample, 0.1 s at 0.01 GB/s
  const std::vector<int> x = random_values(n, random);
  std::vector<int> y(n, 0);
  // Chunks given, so no calibration: the first four chunks are the check's.
  Pipeline pipeline(executor, n, pipeline_options(n / 16, 2, {0}));
  const auto in = pipeline.input(std::span<const int>(x));
  const auto out = pipeline.output(std::span<int>(y));
  pipeline.kernel(streaming_kernels, "affine", {in, out, chunk_offset, chunk_length, 3, 1});
  // The emulated copies move the bytes with memcpy too, which a sanitizer
  // slows to the pageable rate: the first chunks may keep staging or find
  // it slower than direct. Either way the route and the check agree, and
  // the results are exact.
  for (int run = 0; run < 2; ++run) {
    const PipelineReport report = pipeline.run();
    INFO(report.to_string());
    REQUIRE(y == affine_reference(x, 3, 1));
    REQUIRE(!report.arrays.empty());
    const std::string& line = report.arrays[0];
    const bool kept = line.find(", staged (measured on") != std::string::npos &&
                      line.find("; kept after 4 chunks, staged ") != std::string::npos;
    const bool dropped = line.find(", direct (measured on") != std::string::npos &&
                         line.find("; back to direct after 4 chunks, staged ") != std::string::npos;
    CHECK(kept != dropped);
    if (run == 0) CHECK(report.host_copies.count() > 0);  // its first chunks were staged
  }
}

}  // namespace alloy::test
