// Capturing launches while a program runs: the first launch of each matching
// tunable kernel and problem is written, inputs and outputs in the host's
// layout whatever layout the kernel ran in; the program runs on as before.
// Each executor captures a kernel and problem once.
#include <cstdlib>
#include <cstring>

#include "alloy/capture.hpp"
#include "support/layout_kernels.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

Particle record(const std::vector<std::byte>& bytes, std::size_t i) {
  Particle p;
  std::memcpy(&p, bytes.data() + i * sizeof(Particle), sizeof(Particle));
  return p;
}

// The fields record_advance names: x, y, count, id.
void check_named_fields(const Particle& got, const Particle& expected) {
  CHECK(got.x == expected.x);
  CHECK(got.y == expected.y);
  CHECK(got.count == expected.count);
  CHECK(got.id == expected.id);
}

ExecutorOptions capturing(Device& device, const std::filesystem::path& folder, std::string pattern) {
  ExecutorOptions options;
  options.devices = {&device};
  options.capture = std::move(pattern);
  options.capture_directory = folder;
  return options;
}

}  // namespace

TEST_CASE("Executor.Capture.writes_the_first_matching_launch_in_the_host_layout") {
  for_each_device([](Device& device) {
    // aos, soa and aosoa:5 all differ from the host struct's order: the
    // kernel reads a converted view, and the capture converts it back.
    for (const std::int64_t layout : {0, 1, 3}) {
      const int n = 203 + int(layout);
      const TunableKernel kernel = with_only(record_advance_kernel(), "PARTICLES", layout);
      CAPTURE(kernel.name);
      const std::vector<Particle> before = random_particles(n, 3);
      Buffer<Particle> particles{std::span<const Particle>(before)};
      particles.describe(particle_record());
      TemporaryFolder folder("capture");
      Executor executor(runtime(), capturing(device, folder.path, "test.record_advance*"));
      executor.kernel(kernel, Extent(std::size_t(n)), {n, read_write(particles)});
      executor.kernel(kernel, Extent(std::size_t(n)), {n, read_write(particles)});  // not captured: the second
      executor.synchronize(particles);
      executor.wait();

      // Written by the time the work is done.
      const std::filesystem::path file = folder.path / capture_file_name(kernel.name, Extent(std::size_t(n)));
      REQUIRE(std::filesystem::exists(file));
      const Capture capture = read_capture(file);
      CHECK(capture.kernel.description_hash() == kernel.description_hash());
      CHECK(capture.configuration == Configuration{layout});
      CHECK(capture.device == device.info().name);
      CHECK(capture.problem.size == Extent(std::size_t(n)).size);
      REQUIRE(capture.arguments.size() == 2);
      int count = 0;
      std::memcpy(&count, std::get<KernelArg>(capture.arguments[0]).value.data(), sizeof count);
      CHECK(count == n);
      REQUIRE(capture.buffers.size() == 1);
      const CapturedBuffer& captured = capture.buffers[0];
      CHECK(captured.parameter == "particles");
      CHECK(captured.written);
      REQUIRE(captured.host);
      CHECK(std::get<HostRecord>(*captured.host).size == sizeof(Particle));
      REQUIRE(captured.input.size() == before.size() * sizeof(Particle));
      REQUIRE(captured.output.size() == captured.input.size());
      for (std::size_t i = 0; i < before.size(); ++i) {
        CAPTURE(i);
        Particle once = before[i];
        once.x += once.y;
        once.count += once.id;
        check_named_fields(record(captured.input, i), before[i]);
        check_named_fields(record(captured.output, i), once);
        // The program's own result: two launches.
        Particle twice = once;
        twice.x += twice.y;
        twice.count += twice.id;
        check_named_fields(particles.host()[i], twice);
      }
    }
  });
}

TEST_CASE("Executor.Capture.captures_nothing_else_and_never_fails_the_program") {
  for_each_device([](Device& device) {
    const int n = 301;
    const TunableKernel kernel = with_only(record_advance_kernel(), "PARTICLES", 1);
    const std::vector<Particle> before = random_particles(n, 9);
    auto run = [&](const ExecutorOptions& options) {
      Buffer<Particle> particles{std::span<const Particle>(before)};
      particles.describe(particle_record());
      Executor executor(runtime(), options);
      executor.kernel(kernel, Extent(std::size_t(n)), {n, read_write(particles)});
      executor.synchronize(particles);
      for (std::size_t i = 0; i < before.size(); ++i) {
        Particle once = before[i];
        once.x += once.y;
        once.count += once.id;
        check_named_fields(particles.host()[i], once);
      }
    };
    TemporaryFolder folder("capture");
    SUBCASE("a pattern that matches another kernel") {
      run(capturing(device, folder.path, "test.record_step*,alloy.*"));
      CHECK(std::filesystem::is_empty(folder.path));
    }
    SUBCASE("a launch larger than ALLOY_CAPTURE_LIMIT") {
      ::setenv("ALLOY_CAPTURE_LIMIT", "1K", 1);
      run(capturing(device, folder.path, kernel.name));
      ::unsetenv("ALLOY_CAPTURE_LIMIT");
      CHECK(std::filesystem::is_empty(folder.path));
    }
    SUBCASE("a folder that does not exist") {
      // The capture fails with a warning; the kernel's results are as ever.
      run(capturing(device, folder.path / "missing", kernel.name));
      CHECK_FALSE(std::filesystem::exists(folder.path / "missing"));
    }
  });
}

}  // namespace alloy::test
