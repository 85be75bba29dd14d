// How the tuner runs and checks one tunable kernel: its buffers, arguments
// and reference, described as data so a manifest file can give them too.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloy/autotune/element_order.hpp"
#include "alloy/autotune/host_array.hpp"
#include "alloy/buffer.hpp"
#include "alloy/tunable_kernel.hpp"

namespace alloy::autotune {

/// How an output is compared with its reference. Integer elements compare
/// exactly, always; floats within |got - expected| <= absolute + relative *
/// |expected| (NaN never passes).
struct OutputCheck {
  enum class Kind {
    elements,  ///< element by element
    sum,       ///< only the sums (floats: against the sum of |expected|)
    sorted,    ///< element by element after sorting both: any order passes
  };

  Kind kind = Kind::elements;
  double relative = 1e-4;
  double absolute = 1e-4;
};

/// A buffer the kernel reads or writes. Every run starts from the same
/// contents, drawn from a fixed seed per buffer.
struct HarnessBuffer {
  enum class Fill {
    random,    ///< uniform: floats in [-1, 1), integers over the type's whole range
    zeros,
    bits,      ///< zeros and ones: sums of up to 2^24 are exact even in float
    normal,    ///< floats N(0, 1); integers round(N(middle of range, range / 16)), clamped
    skewed,    ///< Zipf (s = 1.1) over 1..min(65536, the type's maximum): a few values most of the time
    sorted,    ///< random, then sorted ascending
    constant,  ///< every element `constant`
    file,      ///< the first elements of `file`: .npy (same element type), else raw
    given,     ///< `given`, as it is: a captured launch's buffer, say
  };

  std::string name;
  ParameterProduct elements;  ///< of problem dimensions only, e.g. {1, {}, {0, 2}} = M*K
  Fill fill = Fill::random;
  bool output = false;        ///< compared against the reference after a run
  ScalarType type = ScalarType::f32;
  OutputCheck check;          ///< for outputs
  /// Written with its initial contents again before every timed run, so
  /// each run starts as the checked one did (an output accumulated into,
  /// say); off for buffers every run overwrites whole, to save the copy.
  bool reset_each_run = false;
  /// The element count is elements / divide, rounded up: "$0*$1/4".
  ParameterProduct divide;
  double constant = 0;         ///< for Fill::constant
  std::filesystem::path file;  ///< for Fill::file
  /// Set when a tuning parameter chooses how the elements lie on the device:
  /// contents (and the reference) stay in canonical order; each run gets
  /// them in its configuration's order, and outputs are put back in
  /// canonical order before they are checked.
  std::optional<BufferLayout> layout;
  /// For Fill::given: the contents, of `type` (bytes, for records).
  std::shared_ptr<const HostArray> given;
  /// Set for a buffer named as one of the kernel's layout arguments
  /// (TunableKernel::records or ::matrices, by parameter): how the host
  /// holds it. Contents
  /// and references stay in this layout; each run gets the records (matrix)
  /// in its configuration's layout, and outputs come back in the host's
  /// before they are compared, field by field (element by element).
  std::optional<HostLayout> host_layout;
  /// An output the kernel writes without reading it (a write access, not
  /// read_write): the executor converts nothing into its layout, so the
  /// tuner prices only its conversion back.
  bool overwritten = false;

  static HarnessBuffer input(std::string name, ParameterProduct elements, Fill fill = Fill::random,
                             ScalarType type = ScalarType::f32) {
    return {std::move(name), std::move(elements), fill, false, type, {}, false, {}, 0, {}, {}, {}, {}, false};
  }
  /// Starts as zeros unless `fill` says otherwise, and is reset before every run.
  static HarnessBuffer checked_output(std::string name, ParameterProduct elements, OutputCheck check = {},
                                      ScalarType type = ScalarType::f32, Fill fill = Fill::zeros) {
    return {std::move(name), std::move(elements), fill, true, type, check, true, {}, 0, {}, {}, {}, {}, false};
  }
};

/// One kernel argument, in the kernel's parameter order.
struct HarnessArgument {
  enum class Kind { buffer, problem_dimension, int_constant, float_constant, scalar };

  Kind kind = Kind::buffer;
  std::size_t index = 0;  ///< buffer index, or problem dimension
  double constant = 0;
  /// A problem dimension's type as the kernel declares it: int, uint, long
  /// or ulong (size_t), say.
  ScalarType type = ScalarType::i32;
  KernelArg value;  ///< Kind::scalar: passed as it is, of any scalar type

  static HarnessArgument buffer(std::size_t index) { return {Kind::buffer, index, 0, ScalarType::i32, {}}; }
  static HarnessArgument dimension(std::size_t d, ScalarType type = ScalarType::i32) {
    return {Kind::problem_dimension, d, 0, type, {}};
  }
  static HarnessArgument int_value(int v) { return {Kind::int_constant, 0, double(v), ScalarType::i32, {}}; }
  static HarnessArgument float_value(float v) {
    return {Kind::float_constant, 0, double(v), ScalarType::f32, {}};
  }
  static HarnessArgument scalar(KernelArg v) { return {Kind::scalar, 0, 0, v.scalar_type, v}; }
};

/// Computes on the host what the kernel's output buffers must hold:
/// `buffers` are every buffer's initial contents; `expected` has one array
/// per output buffer, in buffer order, already typed and sized.
using HostReference = std::function<void(const Extent& problem, const std::vector<HostArray>& buffers,
                                         std::vector<HostArray>& expected)>;

/// A further kernel of the same source, compiled with the same
/// configuration, that every run launches after the tuned kernel: the second
/// pass of a reduction, say. Its time counts in the configuration's.
struct HarnessPass {
  std::string kernel_name;
  std::vector<HarnessArgument> arguments;
  std::vector<LaunchDimensionRule> launch;  ///< as TunableKernel::launch
};

struct Harness {
  std::vector<HarnessBuffer> buffers;
  std::vector<HarnessArgument> arguments;
  /// Run after the tuned kernel, in order, in every run; outputs are
  /// checked after the last.
  std::vector<HarnessPass> passes;
  /// Empty: the outputs of the kernel's default configuration on the same
  /// device are the reference.
  HostReference reference;
};

/// A kernel the tuner knows how to tune, with problems to tune it for when the
/// user names none.
struct TuningTarget {
  TunableKernel kernel;
  Harness harness;
  std::vector<Extent> default_problems;
  std::string description;  ///< one line, for --list
  /// Configurations known to run well on some kinds of device, measured
  /// after the default and TuneOptions::starting_points, before the
  /// strategy proposes. On a device where a compile takes seconds a
  /// budget buys only a few measurements, and a search from random points
  /// alone then lands far apart from one run to the next.
  std::vector<Configuration> starting_points = {};
};

/// alloy's own tunable kernels with their harnesses: "alloy.gemm",
/// "alloy.transpose", "alloy.reduce", "alloy.triad".
const std::vector<TuningTarget>& builtin_targets();

}  // namespace alloy::autotune
