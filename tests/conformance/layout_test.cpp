// Layout-tuned kernels compute the same results in every layout of their
// arguments: host data packed into the configuration's layouts, the kernel
// run, the results unpacked and compared exactly with the host's.
#include <random>

#include "support/layout_kernels.hpp"
#include "support/test_devices.hpp"

namespace alloy::test {
namespace {

std::span<const std::byte> bytes_of(const auto& values) { return std::as_bytes(std::span(values)); }
std::span<std::byte> writable_bytes_of(auto& values) { return std::as_writable_bytes(std::span(values)); }

std::unique_ptr<DeviceBuffer> upload_bytes(Device& device, Queue& queue, const std::vector<std::byte>& bytes) {
  auto buffer = device.allocate(std::max<std::size_t>(bytes.size(), 1));
  if (!bytes.empty()) queue.write(*buffer, 0, bytes.data(), bytes.size());
  return buffer;
}

}  // namespace

TEST_CASE("Conformance.Layouts.record_kernel_in_every_layout") {
  for_each_device([](Device& device) {
    const int n = 1001;  // a multiple of neither aosoa width
    std::mt19937 random(17);
    std::vector<Particle> particles(n);
    for (Particle& p : particles) {
      p = {static_cast<float>(random() % 1000) / 8.0f, static_cast<std::int64_t>(random()) << 20,
           static_cast<std::uint8_t>(random()), static_cast<std::int32_t>(random() % 100000) - 50000,
           static_cast<std::uint16_t>(random() % 60000), static_cast<float>(random() % 1000) / 4.0f};
    }
    const TunableKernel kernel = record_step_kernel();
    kernel.validate();
    const HostRecord particle = particle_record();
    const HostRecord result = step_result_record();
    auto queue = device.create_queue();
    for (const Configuration& configuration : every_configuration(kernel)) {
      CAPTURE(describe(kernel, configuration));
      const RecordPlacement in(kernel.records[0].fields, record_layout(kernel, kernel.records[0], configuration));
      const RecordPlacement out(kernel.records[1].fields, record_layout(kernel, kernel.records[1], configuration));
      std::vector<std::byte> packed(in.bytes(n));
      pack_records(particle, bytes_of(particles), n, in, packed);
      auto device_in = upload_bytes(device, *queue, packed);
      auto device_out = device.allocate(out.bytes(n));
      auto program = runtime().program(device, configured_source(kernel, configuration));
      queue->launch(*program->kernel(kernel.kernel_name), configured_launch(kernel, configuration, Extent(n)), n,
                    *device_in, *device_out);
      const std::vector<std::byte> device_results = download<std::byte>(*queue, *device_out, out.bytes(n));
      std::vector<StepResult> results(n);
      unpack_records(out, device_results, n, result, writable_bytes_of(results));
      for (int i = 0; i < n; ++i) {
        const Particle& p = particles[i];
        CAPTURE(i);
        REQUIRE(results[i].sum == p.x + p.y);
        REQUIRE(results[i].tag == p.count * 3 + p.id);
        REQUIRE(results[i].small == static_cast<std::uint16_t>(p.flags + p.weight));
      }
    }
  });
}

TEST_CASE("Conformance.Layouts.matrix_kernel_in_every_layout") {
  for_each_device([](Device& device) {
    const int rows = 37, columns = 53;  // multiples of neither the tile nor the pad
    std::vector<float> a(rows * columns);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 97) - 48.0f;
    const HostMatrix host{static_cast<std::size_t>(rows), static_cast<std::size_t>(columns), false, 0,
                          ScalarType::f32};
    const TunableKernel kernel = matrix_step_kernel();
    kernel.validate();
    auto queue = device.create_queue();
    for (const Configuration& configuration : every_configuration(kernel)) {
      CAPTURE(describe(kernel, configuration));
      const MatrixPlacement in(ScalarType::f32, matrix_layout(kernel, kernel.matrices[0], configuration));
      const MatrixPlacement out(ScalarType::f32, matrix_layout(kernel, kernel.matrices[1], configuration));
      std::vector<std::byte> packed(in.elements(rows, columns) * sizeof(float));
      pack_matrix(host, bytes_of(a), in, packed);
      auto device_a = upload_bytes(device, *queue, packed);
      const std::size_t out_bytes = out.elements(rows, columns) * sizeof(float);
      auto device_b = device.allocate(out_bytes);
      auto program = runtime().program(device, configured_source(kernel, configuration));
      queue->launch(*program->kernel(kernel.kernel_name),
                    configured_launch(kernel, configuration, Extent(columns, rows)), rows, columns, *device_a,
                    *device_b);
      std::vector<float> b(rows * columns);
      unpack_matrix(out, download<std::byte>(*queue, *device_b, out_bytes), host, writable_bytes_of(b));
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < columns; ++c) {
          CAPTURE(r);
          CAPTURE(c);
          REQUIRE(b[r * columns + c] == 2.0f * a[r * columns + c] + static_cast<float>(1000 * r + c));
        }
      }
    }
  });
}

}  // namespace alloy::test
