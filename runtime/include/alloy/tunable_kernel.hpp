// A kernel whose compile-time parameters are tuned per device: its space of
// configurations, their constraints and how launch geometry follows from them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "alloy/backend/program.hpp"
#include "alloy/device_info.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/layout.hpp"

namespace alloy {

/// One tunable: the `-D` name the kernel source reads and the values it may
/// take. Enum-like tunables (a layout, caching on or off) list integer values
/// with a name for each, for tables and profiles.
struct TuningParameter {
  std::string name;
  std::vector<std::int64_t> values;
  std::int64_t default_value = 0;  ///< one of values; the source's own default
  std::vector<std::string> value_names;  ///< empty, or one per value
};

/// One value per parameter, in the kernel's parameter order.
using Configuration = std::vector<std::int64_t>;

/// factor × the named parameters × the named problem dimensions. The empty
/// product is `factor`.
struct ParameterProduct {
  std::int64_t factor = 1;
  std::vector<std::string> parameters;
  std::vector<unsigned> problem_dimensions;  ///< 0, 1, 2: x, y, z of the problem
};

/// A rule every valid configuration keeps, over products of parameters.
struct TuningConstraint {
  enum class Kind {
    divides,   ///< right % left == 0; a right side of 0 always holds, so a
               ///< 0/1 switch on the right turns the constraint off
    at_most,   ///< left <= right
    equal,     ///< left == right
  };
  Kind kind = Kind::divides;
  ParameterProduct left;
  ParameterProduct right;
};

/// How one launch dimension follows from the problem and the configuration,
/// as CLBlast's tuner expresses it: global = problem[dimension] × multiply /
/// divide, local = local, and the global size rounded up to whole groups.
/// A local size of 0 in every dimension (a parameter value 0, say) leaves
/// the work-group size to the driver; the global size is then not rounded.
struct LaunchDimensionRule {
  unsigned problem_dimension = 0;
  ParameterProduct multiply;
  ParameterProduct divide;
  ParameterProduct local;
};

/// A kernel parameter the source reads with FIELD(parameter, i, field): an
/// array of `count` records whose device layout is the value of the tuning
/// parameter `layout`, whose value names are record layouts ("aos", "soa",
/// "aosoa:8"). Without a layout parameter the records are aos.
struct RecordArgument {
  std::string parameter;            ///< the kernel parameter's name
  std::vector<FieldFormat> fields;  ///< the fields the kernel reads or writes
  std::string count;                ///< the kernel's scalar parameter holding the record count
  std::string layout;               ///< a tuning parameter, or empty
};

/// A kernel parameter the source reads with AT2(parameter, r, c): a matrix
/// of `rows` × `columns` (kernel scalar parameters) whose layout is the value
/// of the tuning parameter `layout`, whose value names are matrix layouts
/// ("row_major", "padded:16", "tiles:8"...). Without one it is row-major.
struct MatrixArgument {
  std::string parameter;
  ScalarType element = ScalarType::f32;
  std::string rows;
  std::string columns;
  std::string layout;
};

/// A kernel and its tuning space, described as data so that the runtime can
/// apply a tuned configuration and the tuner can search it.
///
/// Work-group size (product of the local sizes) is checked against the
/// device's and the compiled kernel's limits and local memory against the
/// device's, so configurations a device cannot take never reach a compiler.
struct TunableKernel {
  std::string name;         ///< registry key, e.g. "alloy.gemm"
  ProgramSource source;     ///< options hold defines every configuration shares
  std::string kernel_name;  ///< entry point in the source
  std::vector<TuningParameter> parameters;
  std::vector<TuningConstraint> constraints;
  std::vector<LaunchDimensionRule> launch;  ///< one per launch dimension
  /// Local memory of a configuration: the sum of these products, in bytes.
  std::vector<ParameterProduct> local_memory_bytes;
  /// Arguments whose device layout a configuration chooses.
  std::vector<RecordArgument> records;
  std::vector<MatrixArgument> matrices;

  Configuration default_configuration() const;
  /// Index of the parameter called `name`; nothing when there is none.
  std::optional<std::size_t> parameter_index(const std::string& name) const;
  /// Hash of the source text, shared options and kernel name: a profile entry
  /// made for another hash is stale.
  std::string source_hash() const;
  /// Hash of everything above: the source and the whole tuning space. Two
  /// descriptions with the same hash are interchangeable.
  std::string description_hash() const;
  /// Throws InvalidArgument when the description is inconsistent (unknown
  /// parameter names, a default outside its values, no launch rule...).
  void validate() const;
};

/// What a device lets a configuration use.
struct DeviceLimits {
  std::size_t max_work_group_size = 0;
  std::array<std::size_t, 3> max_work_item_sizes{};
  std::size_t local_memory_bytes = 0;

  static DeviceLimits of(const DeviceInfo& info);
};

/// The value of `product` under `configuration` (in `kernel`'s parameter
/// order) and `problem`.
std::int64_t evaluate(const TunableKernel& kernel, const ParameterProduct& product,
                      const Configuration& configuration, const Extent& problem);

/// Why a configuration is invalid for a problem on a device; nothing when it
/// is valid. Checks the values lie in their lists, the constraints, the launch
/// geometry (every product positive) and the device limits.
std::optional<std::string> check_configuration(const TunableKernel& kernel,
                                               const Configuration& configuration,
                                               const Extent& problem,
                                               const DeviceLimits& limits);

/// The layout `configuration` gives a layout-tuned argument.
RecordLayout record_layout(const TunableKernel& kernel, const RecordArgument& argument,
                           const Configuration& configuration);
MatrixLayout matrix_layout(const TunableKernel& kernel, const MatrixArgument& argument,
                           const Configuration& configuration);

/// For a launch outside a Graph (a Queue, with Runtime::tuned): the bytes
/// to upload for the matrix argument `parameter`, the host's `matrix` put
/// into the layout `configuration` chooses for it (padding zeroed; a
/// row-major layout with the host's pitch is a plain copy). A Graph task
/// does this by itself. Throws InvalidArgument when the kernel has no matrix
/// argument `parameter` or the host matrix does not fit it.
std::vector<std::byte> matrix_argument_bytes(const TunableKernel& kernel, const Configuration& configuration,
                                             const std::string& parameter, const HostMatrix& host,
                                             std::span<const std::byte> matrix);

/// The source with the configuration's defines added to its options, those
/// of its record and matrix layouts included.
ProgramSource configured_source(const TunableKernel& kernel, const Configuration& configuration);

/// The launch range for the problem under the configuration.
LaunchRange configured_launch(const TunableKernel& kernel, const Configuration& configuration,
                              const Extent& problem);

/// "MWG=64 NWG=64 SA=on", for tables and messages.
std::string describe(const TunableKernel& kernel, const Configuration& configuration);

}  // namespace alloy
