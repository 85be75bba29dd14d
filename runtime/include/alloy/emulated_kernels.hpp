// What kernels do and how long they take on emulated devices
// (ALLOY_EMULATED_DEVICES): host models registered by name.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace alloy::emulation {

/// One launch of a kernel on an emulated device, as its host model sees it.
/// Arguments are numbered as the kernel declares its parameters.
struct KernelLaunch {
  std::array<std::size_t, 3> global{1, 1, 1};  ///< work-items per dimension
  std::array<std::size_t, 3> local{1, 1, 1};   ///< work-group size
  /// Each argument's bytes: a scalar's value, or a buffer's device address.
  std::vector<std::array<std::byte, 8>> arguments;
  /// False on a device that models time only (data=0): buffers then hold
  /// nothing and pointer() is null.
  bool moves_data = true;

  std::size_t work_items() const { return global[0] * global[1] * global[2]; }

  template <class T>
  T scalar(std::size_t argument) const {
    static_assert(sizeof(T) <= 8);
    T value;
    std::memcpy(&value, arguments.at(argument).data(), sizeof(T));
    return value;
  }
  /// The buffer argument's memory, which on an emulated device is host memory.
  template <class T>
  T* pointer(std::size_t argument) const {
    if (!moves_data) return nullptr;
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(scalar<std::uint64_t>(argument)));
  }
};

struct KernelModel {
  /// Computes the launch's results in host memory; empty: only time passes.
  std::function<void(const KernelLaunch&)> run;
  /// The launch's modelled duration in seconds; empty: the device's time
  /// per work-item (the model's `item`) times work_items().
  std::function<double(const KernelLaunch&)> seconds;
};

/// Registers the model of kernels named `kernel_name`, replacing an earlier
/// one. Emulated devices use it for launches from then on. Thread-safe.
///
///   alloy::emulation::define_kernel("scale", {
///       .run = [](const alloy::emulation::KernelLaunch& launch) {
///         const auto n = launch.scalar<std::uint64_t>(2);
///         const float* x = launch.pointer<float>(0);
///         float* y = launch.pointer<float>(1);
///         for (std::uint64_t i = 0; i < n; ++i) y[i] = 2 * x[i];
///       }});
void define_kernel(const std::string& kernel_name, KernelModel model);
/// The model registered for `kernel_name`, if any.
std::optional<KernelModel> find_kernel(const std::string& kernel_name);

}  // namespace alloy::emulation
