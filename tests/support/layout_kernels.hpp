// The layout-tuned test kernels of tests/kernels/*_layouts.cl as tunable
// kernels, and the host records they read, for the conformance and offline
// compile tests.
#pragma once

#include <cstdint>
#include <vector>

#include "alloy/tunable_kernel.hpp"

namespace alloy::test {

// Host structs in an order and with padding of their own: the device
// layouts must not depend on them.
struct Particle {
  float x;
  std::int64_t count;
  std::uint8_t flags;
  std::int32_t id;
  std::uint16_t weight;
  float y;
};
struct StepResult {
  std::uint16_t small;
  std::int64_t tag;
  float sum;
};
HostRecord particle_record();
/// `n` particles with every field random, from `seed`.
std::vector<Particle> random_particles(int n, unsigned seed);
HostRecord step_result_record();

/// record_step over problem[0] records; PARTICLES and RESULTS choose the two
/// arguments' layouts among aos, soa, aosoa:4 and aosoa:5.
TunableKernel record_step_kernel();
/// record_advance over problem[0] records, in place; PARTICLES chooses
/// their layout among aos, soa, aosoa:4 and aosoa:5.
TunableKernel record_advance_kernel();
/// `kernel` with its parameter `name` fixed at `value`: one layout.
TunableKernel with_only(TunableKernel kernel, const std::string& name, std::int64_t value);
/// matrix_step over problem (columns, rows); A and B choose the two matrices'
/// layouts among row_major, column_major, odd_padded:16 and tiles:8.
TunableKernel matrix_step_kernel();

/// Every configuration of `kernel` (its parameters' value lists crossed).
std::vector<Configuration> every_configuration(const TunableKernel& kernel);

}  // namespace alloy::test
