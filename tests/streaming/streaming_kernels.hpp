// The kernels the streaming tests run, and their host models for emulated
// devices (which compute nothing without one).
#pragma once

#include <cstdint>
#include <string>

#include "alloy/alloy.hpp"
#include "alloy/emulated_kernels.hpp"

namespace alloy::test {

inline const ProgramSource streaming_kernels{"streaming.cl", R"(
// y = a*x + b + the element's index in the whole array.
KERNEL void affine(GLOBAL const int* x, GLOBAL int* y, ulong offset, ulong length, int a, int b) {
  const ulong i = get_global_id(0);
  if (i < length) y[i] = a * x[i] + b + (int)(offset + i);
}

// Two inputs of different types into two outputs.
KERNEL void combine_two(GLOBAL const int* a, GLOBAL const float* b, GLOBAL int* sum, GLOBAL float* scaled,
                ulong length) {
  const ulong i = get_global_id(0);
  if (i < length) {
    sum[i] = a[i] + (int)b[i];
    scaled[i] = b[i] * 0.5f;
  }
}

// One work-item adds up the chunk: its sum and its largest value.
KERNEL void sum_and_max(GLOBAL const int* x, GLOBAL long* partial, ulong length) {
  long sum = 0;
  long largest = -2147483648L;
  for (ulong i = 0; i < length; ++i) {
    sum += x[i];
    largest = max(largest, (long)x[i]);
  }
  partial[0] = sum;
  partial[1] = largest;
}
)",
                                             ""};

/// A model that computes, taking the device's default time.
inline emulation::KernelModel computing(std::function<void(const emulation::KernelLaunch&)> run) {
  emulation::KernelModel model;
  model.run = std::move(run);
  return model;
}

/// Models of the kernels above for emulated devices: what they compute.
inline void define_streaming_kernel_models() {
  using emulation::KernelLaunch;
  emulation::define_kernel("affine", computing([](const KernelLaunch& launch) {
                                        const int* x = launch.pointer<int>(0);
                                        int* y = launch.pointer<int>(1);
                                        const auto offset = launch.scalar<std::uint64_t>(2);
                                        const auto length = launch.scalar<std::uint64_t>(3);
                                        const int a = launch.scalar<int>(4);
                                        const int b = launch.scalar<int>(5);
                                        for (std::uint64_t i = 0; i < length; ++i) {
                                          y[i] = a * x[i] + b + static_cast<int>(offset + i);
                                        }
                                      }));
  emulation::define_kernel("combine_two", computing([](const KernelLaunch& launch) {
                                     const int* a = launch.pointer<int>(0);
                                     const float* b = launch.pointer<float>(1);
                                     int* sum = launch.pointer<int>(2);
                                     float* scaled = launch.pointer<float>(3);
                                     const auto length = launch.scalar<std::uint64_t>(4);
                                     for (std::uint64_t i = 0; i < length; ++i) {
                                       sum[i] = a[i] + static_cast<int>(b[i]);
                                       scaled[i] = b[i] * 0.5f;
                                     }
                                   }));
  emulation::define_kernel("sum_and_max", computing([](const KernelLaunch& launch) {
                                             const int* x = launch.pointer<int>(0);
                                             auto* partial = launch.pointer<std::int64_t>(1);
                                             const auto length = launch.scalar<std::uint64_t>(2);
                                             std::int64_t sum = 0;
                                             std::int64_t largest = -2147483648LL;
                                             for (std::uint64_t i = 0; i < length; ++i) {
                                               sum += x[i];
                                               largest = std::max<std::int64_t>(largest, x[i]);
                                             }
                                             partial[0] = sum;
                                             partial[1] = largest;
                                           }));
}

}  // namespace alloy::test
