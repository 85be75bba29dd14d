// Real results for emulated launches: the kernel's composed source (whose
// prelude reads as OpenCL C) runs on an OpenCL CPU device (PoCL) over the
// host memory that stands for device memory. The machine model, not this,
// gives a launch its duration.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace alloy::emulation {

/// One argument of a computed launch.
struct ComputeArgument {
  bool is_buffer = false;
  /// A buffer: the host memory standing for its device memory, to the end
  /// of its allocation (null for a null pointer).
  void* data = nullptr;
  std::size_t span = 0;
  /// A scalar: its bytes, as the launch was given them, and how many.
  std::array<std::byte, 8> value{};
  std::size_t value_bytes = 0;
};

struct ComputeLaunch {
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{1, 1, 1};
  std::vector<ComputeArgument> arguments;
};

/// A program built for the compute device.
class ComputeProgram;

class OpenclCompute {
 public:
  /// The process's one, on the first CPU device that OpenCL lists (the
  /// first device of any type if there is no CPU device: a GPU computes the
  /// same results, over host memory).
  static OpenclCompute& get();

  /// Empty when a device was found; else why there is none.
  const std::string& unavailable_reason() const { return unavailable_reason_; }
  const std::string& device_name() const { return device_name_; }

  /// Builds `source`; on failure returns null and the compiler's log in `log`.
  /// Built programs are kept, so a module loaded again is not rebuilt.
  std::shared_ptr<const ComputeProgram> build(const std::string& source, const std::string& options,
                                              std::string& log);

  /// Runs `kernel` to completion for emulated device `device` (each has a
  /// queue of its own). Returns empty, or what failed.
  std::string run(const ComputeProgram& program, const std::string& kernel, int device,
                  const ComputeLaunch& launch);

  /// Each parameter of `kernel` as OpenCL reads it (a buffer, or a scalar's
  /// bytes); nothing if the program has no such kernel or a parameter alloy
  /// cannot pass. For kernels whose declaration the source parser cannot read.
  std::optional<std::vector<ComputeArgument>> parameters(const ComputeProgram& program, const std::string& kernel);

  /// The most work-items a work-group of `kernel` may have: what the kernel
  /// demands (reqd_work_group_size) or the device allows it, capped at `cap`
  /// (`cap` where the program has no such kernel).
  std::size_t max_work_group_size(const ComputeProgram& program, const std::string& kernel, std::size_t cap);

  /// Why `launch` cannot run `kernel` (its work-group differs from the one
  /// the kernel requires, or its arguments do not match the parameters), or
  /// empty: checked when the launch is submitted, as a driver checks its
  /// parameters.
  std::string check(const ComputeProgram& program, const std::string& kernel, const ComputeLaunch& launch);

  struct State;

 private:
  OpenclCompute();

  std::string unavailable_reason_;
  std::string device_name_;
  std::shared_ptr<State> state_;
};

}  // namespace alloy::emulation
