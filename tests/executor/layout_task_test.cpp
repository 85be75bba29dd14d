// Kernel tasks whose configuration wants their buffers in another layout:
// the executor converts on the device or while staging the upload, keeps the
// converted copy while it is current, converts writes back, and serves two
// layouts of one buffer.

#include "replicas.hpp"
#include "support/layout_kernels.hpp"
#include "support/temporary_folder.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

void check_step(const std::vector<Particle>& particles, std::span<const StepResult> results) {
  REQUIRE(results.size() == particles.size());
  for (std::size_t i = 0; i < particles.size(); ++i) {
    const Particle& p = particles[i];
    CAPTURE(i);
    REQUIRE(results[i].sum == p.x + p.y);
    REQUIRE(results[i].tag == p.count * 3 + p.id);
    REQUIRE(results[i].small == static_cast<std::uint16_t>(p.flags + p.weight));
  }
}

Particle advanced(Particle p) {
  p.x += p.y;
  p.count += p.id;
  return p;
}

bool same(const Particle& a, const Particle& b) {
  return a.x == b.x && a.count == b.count && a.flags == b.flags && a.id == b.id && a.weight == b.weight &&
         a.y == b.y;
}

/// A profile for `device` that runs record_step (n records) with soa
/// particles and aosoa:5 results, and record_advance with soa particles,
/// both staging their particles on the host when `staged`.
void write_staging_profile(const std::filesystem::path& folder, const Device& device, int n, bool staged) {
  DeviceProfile profile = DeviceProfile::for_device(device.info());
  ProfileEntry step;
  step.kernel = record_step_kernel().name;
  step.source_hash = record_step_kernel().source_hash();
  step.problem = Extent(n);
  step.configuration = {{"PARTICLES", 1}, {"RESULTS", 3}};
  step.seconds = 1e-4;
  if (staged) step.staged_on_host = {"particles", "results"};
  profile.put(step);
  ProfileEntry advance = step;
  advance.kernel = record_advance_kernel().name;
  advance.source_hash = record_advance_kernel().source_hash();
  advance.configuration = {{"PARTICLES", 1}};
  profile.put(advance);
  write_profile(ProfileStore::file_for(folder, device.info()), profile);
}

}  // namespace

TEST_CASE("Executor.Layouts.read_views_are_staged_on_the_host_where_the_profile_says") {
  for_each_device([](Device& device) {
    const int n = 1003;  // not a multiple of the results' aosoa width
    for (const bool staged : {false, true}) {
      CAPTURE(staged);
      TemporaryFolder folder("staged-layouts");
      write_staging_profile(folder.path, device, n, staged);
      ProfiledRuntime tuned = runtime_with_profiles(folder.path, device);
      ExecutorOptions options;
      options.devices = {tuned.device};
      Executor executor(*tuned.runtime, options);

      std::vector<Particle> model = random_particles(n, 31);
      Buffer<Particle> particles{std::span<const Particle>(model)};
      particles.describe(particle_record());
      Buffer<StepResult> results(n);
      results.describe(step_result_record());
      executor.kernel(record_step_kernel(), Extent(n), {n, read(particles), write(results)});
      executor.synchronize(results);
      check_step(model, results.host());
      // Staged, the device holds the particles' soa view and not their bytes;
      // the results, written, convert on the device and are there.
      CHECK(has_replica(*particles.storage(), tuned.device) == !staged);
      CHECK(has_replica(*results.storage(), tuned.device));

      // Changed on the host: staged again from the new bytes.
      executor.host({read_write(particles.whole())}, [&] {
        for (Particle& p : particles.host()) p.count += 5;
      });
      for (Particle& p : model) p.count += 5;
      executor.kernel(record_step_kernel(), Extent(n), {n, read(particles), write(results)});
      executor.synchronize(results);
      check_step(model, results.host());
      CHECK(has_replica(*particles.storage(), tuned.device) == !staged);

      // Written on the device, the particles convert there: the host has
      // no current bytes to stage, and record_advance's own view converts
      // back through the buffer's bytes on the device.
      executor.kernel(record_advance_kernel(), Extent(n), {n, read_write(particles)});
      for (Particle& p : model) p = advanced(p);
      executor.kernel(record_step_kernel(), Extent(n), {n, read(particles), write(results)});
      executor.synchronize(results);
      check_step(model, results.host());
      CHECK(has_replica(*particles.storage(), tuned.device));
      executor.synchronize(particles);
      for (int i = 0; i < n; ++i) REQUIRE(same(particles.host()[i], model[i]));
      executor.wait();
    }
  });
}

TEST_CASE("Executor.Layouts.kernel_gets_its_layouts_and_writes_come_back") {
  for_each_device([](Device& device) {
    const int n = 1001;
    const std::vector<Particle> particles = random_particles(n, 5);
    ExecutorOptions on_this_device;
    on_this_device.devices = {&device};
    Executor executor(runtime(), on_this_device);
    for (std::int64_t in = 0; in < 4; ++in) {
      for (std::int64_t out = 0; out < 4; ++out) {
        const TunableKernel kernel = with_only(with_only(record_step_kernel(), "PARTICLES", in), "RESULTS", out);
        CAPTURE(kernel.name);
        Buffer<Particle> input{std::span<const Particle>(particles)};
        input.describe(particle_record());
        Buffer<StepResult> results(n);
        results.describe(step_result_record());
        executor.kernel(kernel, Extent(n), {n, read(input), write(results)});
        executor.synchronize(results);
        check_step(particles, results.host());
      }
    }
  });
}

TEST_CASE("Executor.Layouts.dependents_wait_for_the_conversion_back") {
  for_each_device([](Device&) {
    // The written argument declared first: the task must still end with its
    // conversion back, not with the read argument's kernel event.
    const int n = 4099;
    std::vector<Particle> model = random_particles(n, 21);
    TunableKernel kernel = with_only(with_only(record_step_kernel(), "PARTICLES", 1), "RESULTS", 2);
    std::swap(kernel.records[0], kernel.records[1]);
    Buffer<Particle> input{std::span<const Particle>(model)};
    input.describe(particle_record());
    Buffer<StepResult> results(n), copied(n);
    results.describe(step_result_record());
    ExecutorOptions options = on_selected_devices();
    options.compute_lanes = 3;
    Executor executor(runtime(), options);
    for (int round = 0; round < 5; ++round) {
      // New inputs each round, so that a copy that overtook the conversion
      // back would find the last round's results.
      Graph graph;
      graph.host({read_write(input.whole())}, [input]() mutable {
        for (Particle& p : input.host()) p.x += 1.0f;
      });
      graph.kernel(kernel, Extent(n), {n, read(input), write(results)});
      graph.copy(results.whole(), copied.whole());
      executor.run(graph);
      executor.synchronize(copied);
      for (Particle& p : model) p.x += 1.0f;
      check_step(model, copied.host());
    }
  });
}

TEST_CASE("Executor.Layouts.in_place_updates_keep_fields_the_kernel_does_not_name") {
  for_each_device([](Device& device) {
    const int n = 333;
    for (std::int64_t layout = 0; layout < 4; ++layout) {
      const TunableKernel advance = with_only(record_advance_kernel(), "PARTICLES", layout);
      CAPTURE(advance.name);
      std::vector<Particle> expected = random_particles(n, 9);
      Buffer<Particle> particles{std::span<const Particle>(expected)};
      particles.describe(particle_record());
      ExecutorOptions on_this_device;
      on_this_device.devices = {&device};
      Executor executor(runtime(), on_this_device);
      // Three launches in a row: the view stays current between them.
      for (int step = 0; step < 3; ++step) {
        executor.kernel(advance, Extent(n), {n, read_write(particles)});
        for (Particle& p : expected) p = advanced(p);
      }
      executor.synchronize(particles);
      for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        REQUIRE(same(particles.host()[i], expected[i]));  // flags and weight untouched
      }
    }
  });
}

TEST_CASE("Executor.Layouts.two_layouts_of_one_buffer_stay_coherent") {
  for_each_device([](Device&) {
    const int n = 257;
    std::vector<Particle> model = random_particles(n, 11);
    Buffer<Particle> particles{std::span<const Particle>(model)};
    particles.describe(particle_record());
    const TunableKernel soa_advance = with_only(record_advance_kernel(), "PARTICLES", 1);
    const TunableKernel aosoa_advance = with_only(record_advance_kernel(), "PARTICLES", 2);
    const TunableKernel soa_step = with_only(with_only(record_step_kernel(), "PARTICLES", 1), "RESULTS", 0);
    const TunableKernel aosoa_step = with_only(with_only(record_step_kernel(), "PARTICLES", 2), "RESULTS", 3);
    Buffer<StepResult> first(n), second(n), third(n);
    for (auto* results : {&first, &second, &third}) results->describe(step_result_record());

    Graph graph;
    graph.kernel(soa_step, Extent(n), {n, read(particles), write(first)});      // soa view made
    graph.kernel(aosoa_advance, Extent(n), {n, read_write(particles)});         // aosoa written, soa stale
    graph.host({read_write(particles.whole())}, [&] {                            // the host's own layout
      for (Particle& p : particles.host()) p.y += 1.0f;
    });
    graph.kernel(soa_advance, Extent(n), {n, read_write(particles)});           // soa again: converted anew
    graph.kernel(aosoa_step, Extent(n), {n, read(particles), write(second)});   // aosoa: stale too
    graph.kernel(soa_step, Extent(n), {n, read(particles), write(third)});      // soa: current, reused
    Executor executor(runtime(), on_selected_devices());
    executor.run(graph);
    executor.synchronize(first);
    executor.synchronize(second);
    executor.synchronize(third);
    executor.synchronize(particles);

    check_step(model, first.host());
    for (Particle& p : model) p = advanced(p);
    for (Particle& p : model) p.y += 1.0f;
    for (Particle& p : model) p = advanced(p);
    check_step(model, second.host());
    check_step(model, third.host());
    for (int i = 0; i < n; ++i) REQUIRE(same(particles.host()[i], model[i]));
  });
}

TEST_CASE("Executor.Layouts.matrix_in_every_layout") {
  for_each_device([](Device&) {
    const int rows = 37, columns = 53;
    std::vector<float> a(rows * columns);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 97) - 48.0f;
    Executor executor(runtime(), on_selected_devices());
    for (std::int64_t in = 0; in < 4; ++in) {
      for (std::int64_t out = 0; out < 4; ++out) {
        const TunableKernel kernel = with_only(with_only(matrix_step_kernel(), "A", in), "B", out);
        CAPTURE(kernel.name);
        Buffer<float> matrix{std::span<const float>(a)};
        matrix.describe(HostMatrix{std::size_t(rows), std::size_t(columns), false, 0, ScalarType::f32});
        // The result in the host's column-major order, with a padded pitch.
        const std::size_t pitch = rows + 3;
        Buffer<float> result(pitch * columns);
        result.describe(HostMatrix{std::size_t(rows), std::size_t(columns), true, pitch, ScalarType::f32});
        executor.kernel(kernel, Extent(columns, rows), {rows, columns, read(matrix), write(result)});
        executor.synchronize(result);
        for (int r = 0; r < rows; ++r) {
          for (int c = 0; c < columns; ++c) {
            REQUIRE(result.host()[c * pitch + r] == 2.0f * a[r * columns + c] + static_cast<float>(1000 * r + c));
          }
        }
      }
    }
  });
}

// A plain buffer passed as a matrix is its rows and columns packed
// row-major: converted into a padded layout and back like a described one.
TEST_CASE("Executor.Layouts.an_undescribed_matrix_is_packed_row_major") {
  for_each_device([](Device&) {
    const int rows = 19, columns = 32;  // a power-of-two row: odd_padded:16 makes it 48
    std::vector<float> a(rows * columns);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 89) - 40.0f;
    Executor executor(runtime(), on_selected_devices());
    for (std::int64_t in = 0; in < 4; ++in) {
      // B = 2 (odd_padded:16) for the result, which is written.
      const TunableKernel kernel = with_only(with_only(matrix_step_kernel(), "A", in), "B", 2);
      CAPTURE(kernel.name);
      Buffer<float> matrix{std::span<const float>(a)};
      Buffer<float> result(a.size());
      executor.kernel(kernel, Extent(columns, rows), {rows, columns, read(matrix), write(result)});
      executor.synchronize(result);
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < columns; ++c) {
          REQUIRE(result.host()[r * columns + c] == 2.0f * a[r * columns + c] + static_cast<float>(1000 * r + c));
        }
      }
    }
  });
  Buffer<float> short_one(10 * 32 - 1);
  Buffer<float> result(10 * 32);
  Graph graph;
  CHECK_THROWS_WITH_AS(graph.kernel(matrix_step_kernel(), Extent(32, 10), {10, 32, read(short_one), write(result)}),
                       doctest::Contains("the buffer passed as 'a' holds 1276 bytes, not a packed 10 x 32 matrix"),
                       InvalidArgument);
  CHECK(graph.size() == 0);
}

// The library gemm with A and B padded to an odd number of cache lines, as
// a profile may choose: the executor converts plain row-major buffers, and
// the product is exact (small integers).
TEST_CASE("Executor.Layouts.gemm_with_padded_operands") {
  for_each_device([](Device& device) {
    const int m = 33, n = 64, k = 48;
    const TunableKernel& gemm = kernel_library::gemm();
    TemporaryFolder folder("padded-gemm");
    DeviceProfile profile = DeviceProfile::for_device(device.info());
    ProfileEntry entry;
    entry.kernel = gemm.name;
    entry.source_hash = gemm.source_hash();
    entry.problem = Extent(m, n, k);
    for (const TuningParameter& parameter : gemm.parameters) {
      entry.configuration[parameter.name] = parameter.name == "LAYOUT_AB" ? 1 : parameter.default_value;
    }
    entry.seconds = 1e-4;
    profile.put(entry);
    write_profile(ProfileStore::file_for(folder.path, device.info()), profile);
    ProfiledRuntime tuned = runtime_with_profiles(folder.path, device);
    const TunedChoice choice = tuned.runtime->profiles().lookup(tuned.device->info(), gemm, entry.problem);
    REQUIRE(describe(gemm, choice.configuration).find("LAYOUT_AB=odd_padded:16") != std::string::npos);

    std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(int(i % 7) - 3);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(int(i % 5) - 2);
    Buffer<float> buffer_a{std::span<const float>(a)}, buffer_b{std::span<const float>(b)};
    Buffer<float> buffer_c(std::size_t(m) * n);
    ExecutorOptions options;
    options.devices = {tuned.device};
    Executor executor(*tuned.runtime, options);
    executor.kernel(gemm, Extent(m, n, k), {m, n, k, read(buffer_a), read(buffer_b), write(buffer_c)});
    executor.synchronize(buffer_c);
    for (int row = 0; row < m; ++row) {
      for (int column = 0; column < n; ++column) {
        float expected = 0;
        for (int i = 0; i < k; ++i) expected += a[std::size_t(row) * k + i] * b[std::size_t(i) * n + column];
        REQUIRE(buffer_c.host()[std::size_t(row) * n + column] == expected);
      }
    }
  });
}

TEST_CASE("Executor.Layouts.bad_layout_arguments_are_refused_when_added") {
  const int n = 64;
  Buffer<Particle> undescribed(n);
  Buffer<StepResult> results(n);
  results.describe(step_result_record());
  Graph graph;
  const TunableKernel kernel = record_step_kernel();
  CHECK_THROWS_WITH_AS(graph.kernel(kernel, Extent(n), {n, read(undescribed), write(results)}),
                       doctest::Contains("the buffer passed as 'particles' has no host layout"), InvalidArgument);
  Buffer<Particle> particles(n);
  particles.describe(particle_record());
  CHECK_THROWS_WITH_AS(graph.kernel(kernel, Extent(n), {n + 1, read(particles), write(results)}),
                       doctest::Contains("'n' must be 64, what the buffer passed as 'particles' holds, not 65"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(graph.kernel(kernel, Extent(n), {n, read(particles.slice(0, 10)), write(results)}),
                       doctest::Contains("must access its whole buffer"), InvalidArgument);
  // The results as a plain argument: the particles' buffer may not be it.
  TunableKernel particles_only = record_step_kernel();
  particles_only.records.pop_back();
  CHECK_THROWS_WITH_AS(graph.kernel(particles_only, Extent(n), {n, read(particles), write(particles)}),
                       doctest::Contains("'particles' is passed again as buffer argument 1"), InvalidArgument);
  CHECK_THROWS_WITH_AS(particles.describe(HostMatrix{100, 100, false, 0, ScalarType::f32}),
                       doctest::Contains("does not fit a buffer of"), InvalidArgument);
  CHECK(graph.size() == 0);
}

}  // namespace alloy::test
