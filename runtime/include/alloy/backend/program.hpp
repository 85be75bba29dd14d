// Compiled programs and the kernels in them.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "alloy/kernel_args.hpp"

namespace alloy {

class Device;
class Program;

/// What the compiler decided for one kernel on one device.
struct KernelAttributes {
  std::size_t max_work_group_size = 0;  ///< for this kernel, at most the device's
  std::size_t local_memory_bytes = 0;   ///< statically used local memory
  std::size_t preferred_work_group_multiple = 1;
  /// Parameter count as the compiler sees it, where the backend can tell;
  /// checked on every launch, even when the source's declaration was not
  /// parsed, so a launch never runs with arguments left from an earlier one.
  std::optional<std::size_t> argument_count;
  /// Each parameter's size in bytes as the compiler laid it out, where the
  /// backend can tell (CUDA 12.4+): a scalar of another size is refused at
  /// launch, also for parameter types the declaration parser cannot read.
  std::vector<std::size_t> argument_bytes;
};

/// Portable kernel source (see docs/kernels.md) and its compile options.
/// Options are the portable subset: `-DNAME=VALUE` and `-DNAME`.
struct ProgramSource {
  std::string name;    ///< shown in errors and compiler logs, e.g. "saxpy.cl"
  std::string source;  ///< without the prelude: the runtime prepends it
  std::string options;
};

/// One kernel entry point of a Program. Launching the same Kernel from several
/// threads is safe. Keeps its Program alive.
class Kernel {
 public:
  virtual ~Kernel() = default;

  const std::string& name() const { return name_; }
  const KernelAttributes& attributes() const { return attributes_; }
  /// The declared parameters, when the source declares the kernel plainly.
  const std::optional<KernelSignature>& signature() const { return signature_; }
  Program& program() const { return *program_; }

 protected:
  Kernel(std::shared_ptr<Program> program, std::string name, KernelAttributes attributes);

 private:
  friend class Program;
  std::shared_ptr<Program> program_;
  std::string name_;
  KernelAttributes attributes_;
  std::optional<KernelSignature> signature_;
};

/// A program built for one device. Thread-safe.
class Program : public std::enable_shared_from_this<Program> {
 public:
  virtual ~Program() = default;

  Device& device() const { return device_; }
  const ProgramSource& source() const { return source_; }

  /// The kernel called `name`; shared while anyone holds it. Throws
  /// InvalidArgument when the program has no such kernel.
  std::shared_ptr<Kernel> kernel(const std::string& name);

  /// The device binary, for the on-disk compile cache.
  virtual std::vector<std::byte> binary() const = 0;

  /// Whether its kernels may run as slices of a launch range
  /// (LaunchRange::slice; docs/kernels.md, "Slices").
  bool sliceable() const { return sliceable_; }
  /// Whether its kernels take the first-group parameters after the
  /// declared ones, which CUDA and HIP launches pass.
  bool takes_first_group() const { return takes_first_group_; }

 protected:
  Program(Device& device, ProgramSource source)
      : device_(device), source_(std::move(source)) {}

 private:
  virtual std::shared_ptr<Kernel> create_kernel(const std::string& name) = 0;

  friend class Device;  // tells what composing the source found

  Device& device_;
  ProgramSource source_;
  bool sliceable_ = false;
  bool takes_first_group_ = false;
  std::mutex kernels_mutex_;
  // Weak: a Kernel owns its Program, so owning kernels here would be a cycle.
  std::unordered_map<std::string, std::weak_ptr<Kernel>> kernels_;
};

}  // namespace alloy
