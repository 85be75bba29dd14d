// What every MPI test program does first: MPI, this rank's device, a seed
// all ranks share, and the kernels the programs use.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "alloy/alloy.hpp"
#include "alloy/mpi/communicator.hpp"
#include "support/random_seed.hpp"

namespace alloy::test {

/// Exit status ctest reads as "skipped" (SKIP_RETURN_CODE).
constexpr int skipped = 77;

inline const ProgramSource rank_kernels{"rank_kernels.cl", R"(
// data[first + i] = data[first + i] * factor + offset, in wrapping unsigned arithmetic.
KERNEL void scale_range(const int first, const int count, const uint factor, const uint offset, GLOBAL uint* data) {
  const int i = (int)get_global_id(0);
  if (i < count) data[first + i] = data[first + i] * factor + offset;
}
// dst[to + i] = src[from + i] for i < count.
KERNEL void copy_range(const int from, const int to, const int count, GLOBAL const uint* src, GLOBAL uint* dst) {
  const int i = (int)get_global_id(0);
  if (i < count) dst[to + i] = src[from + i];
}
)", ""};

/// The seed rank 0 drew (or ALLOY_TEST_SEED), the same on every rank; printed once.
inline std::uint64_t shared_seed(const mpi::Communicator& world, const char* program) {
  std::uint64_t seed = random_seed();
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, world.handle());
  if (world.rank() == 0) {
    std::printf("%s on %d ranks: seed %llu (ALLOY_TEST_SEED=%llu replays it)\n", program, world.size(),
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
    std::fflush(stdout);
  }
  return seed;
}

/// This rank's device: local rank i takes device i mod n, as a program with
/// one rank per GPU does. Null, with why printed, when there is none.
inline Device* device_of_rank(Runtime& runtime, const mpi::Communicator& world) {
  const auto& devices = runtime.devices();
  if (devices.empty()) {
    std::fprintf(stderr, "alloy-skip: %s has no device\n", world.label().c_str());
    return nullptr;
  }
  return devices[static_cast<std::size_t>(world.local_rank()) % devices.size()];
}

inline ExecutorOptions on_device(Device* device) {
  ExecutorOptions options;
  options.devices = {device};
  return options;
}

}  // namespace alloy::test
