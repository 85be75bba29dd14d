// Finding and checking the buffers behind a tunable kernel's layout arguments.
#include "layout_bindings.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "alloy/error.hpp"
#include "alloy/scalar_dispatch.hpp"

namespace alloy::detail {
namespace {

// Reads integer scalars of any width; nothing for floating point, negative
// values or buffers.
std::optional<std::uint64_t> integer_value(const TaskArgument& argument) {
  const auto* scalar = std::get_if<KernelArg>(&argument);
  if (scalar == nullptr) return std::nullopt;
  return with_scalar_type(scalar->scalar_type, [&](auto zero) -> std::optional<std::uint64_t> {
    using Type = decltype(zero);
    if constexpr (std::is_floating_point_v<Type>) {
      return std::nullopt;
    } else {
      Type value;
      std::memcpy(&value, scalar->value.data(), sizeof value);
      if constexpr (std::is_signed_v<Type>) {
        if (value < 0) return std::nullopt;
      }
      return static_cast<std::uint64_t>(value);
    }
  });
}

class Binder {
 public:
  Binder(const TunableKernel& tunable, const KernelWork& kernel, const std::vector<Access>& accesses)
      : tunable_(tunable), kernel_(kernel), accesses_(accesses) {
    const std::optional<KernelSignature> signature =
        find_kernel_signature(tunable.source.source, tunable.kernel_name);
    if (!signature) {
      throw InvalidArgument(prefix() + "layout arguments need the kernel declared once as KERNEL void " +
                            tunable.kernel_name + "(...) in its source");
    }
    for (const KernelParameter& parameter : signature->parameters) names_.push_back(parameter.name);
  }

  std::string prefix() const { return "tunable kernel '" + tunable_.name + "': "; }

  std::size_t position(const std::string& parameter) const {
    const auto found = std::find(names_.begin(), names_.end(), parameter);
    if (found == names_.end()) {
      throw InvalidArgument(prefix() + "the kernel has no parameter '" + parameter + "' for a layout argument");
    }
    const auto index = static_cast<std::size_t>(found - names_.begin());
    if (index >= kernel_.args.size()) {
      throw InvalidArgument(prefix() + "parameter '" + parameter + "' is argument " + std::to_string(index) +
                            ", but the task passes " + std::to_string(kernel_.args.size()));
    }
    return index;
  }

  /// The whole-buffer access passed as `parameter`.
  std::size_t whole_access(const std::string& parameter) const {
    const TaskArgument& argument = kernel_.args[position(parameter)];
    if (!std::holds_alternative<std::size_t>(argument)) {
      throw InvalidArgument(prefix() + "layout argument '" + parameter + "' must be a buffer access");
    }
    const std::size_t access = std::get<std::size_t>(argument);
    const BufferSlice& slice = accesses_[access].slice;
    if (slice.range.begin != 0 || slice.range.end != slice.storage->size()) {
      throw InvalidArgument(prefix() + "layout argument '" + parameter +
                            "' must access its whole buffer: a layout rearranges all of it");
    }
    return access;
  }

  const BufferStorage& storage(std::size_t access) const { return *accesses_[access].slice.storage; }

  void check_size(const std::string& parameter, const std::string& size_parameter, std::uint64_t holds) const {
    const std::optional<std::uint64_t> value = integer_value(kernel_.args[position(size_parameter)]);
    if (value != holds) {
      throw InvalidArgument(prefix() + "'" + size_parameter + "' must be " + std::to_string(holds) +
                            ", what the buffer passed as '" + parameter + "' holds" +
                            (value ? ", not " + std::to_string(*value) : ", as an integer"));
    }
  }

  LayoutBinding records(std::size_t declaration) const {
    const RecordArgument& argument = tunable_.records[declaration];
    const std::size_t access = whole_access(argument.parameter);
    const BufferStorage& buffer = storage(access);
    if (buffer.host_layout() == nullptr) {
      throw InvalidArgument(prefix() + "the buffer passed as '" + argument.parameter +
                            "' has no host layout; describe its records first (Buffer::describe)");
    }
    const auto* host = std::get_if<HostRecord>(buffer.host_layout());
    if (host == nullptr) {
      throw InvalidArgument(prefix() + "'" + argument.parameter + "' takes records, its buffer is described as a matrix");
    }
    for (const FieldFormat& field : argument.fields) host->field_for(field);
    check_size(argument.parameter, argument.count, buffer.size() / host->size);
    return {access, false, declaration, std::make_shared<const HostLayout>(*host)};
  }

  LayoutBinding matrix(std::size_t declaration) const {
    const MatrixArgument& argument = tunable_.matrices[declaration];
    const std::size_t access = whole_access(argument.parameter);
    if (storage(access).host_layout() == nullptr) return packed_matrix(declaration, access);
    const auto* host = std::get_if<HostMatrix>(storage(access).host_layout());
    if (host == nullptr) {
      throw InvalidArgument(prefix() + "'" + argument.parameter + "' takes a matrix, its buffer is described as records");
    }
    if (host->element != argument.element) {
      throw InvalidArgument(prefix() + "'" + argument.parameter + "' takes a matrix of " +
                            std::string(to_string(argument.element)) + ", its buffer holds " +
                            std::string(to_string(host->element)));
    }
    check_size(argument.parameter, argument.rows, host->rows);
    check_size(argument.parameter, argument.columns, host->columns);
    return {access, true, declaration, std::make_shared<const HostLayout>(*host)};
  }

  /// An undescribed buffer as a matrix: packed row-major, of the declared
  /// element type and the rows and columns the task passes, which must
  /// account for every byte.
  LayoutBinding packed_matrix(std::size_t declaration, std::size_t access) const {
    const MatrixArgument& argument = tunable_.matrices[declaration];
    HostMatrix host;
    host.rows = size_argument(argument.rows);
    host.columns = size_argument(argument.columns);
    host.element = argument.element;
    const std::size_t bytes = storage(access).size();
    const std::size_t element = size_of(argument.element);
    if (host.columns != 0 ? bytes / element / host.columns != host.rows || bytes % (element * host.columns) != 0
                          : bytes != 0) {
      throw InvalidArgument(prefix() + "the buffer passed as '" + argument.parameter + "' holds " +
                            std::to_string(bytes) + " bytes, not a packed " + std::to_string(host.rows) + " x " +
                            std::to_string(host.columns) + " matrix of " + std::string(to_string(argument.element)) +
                            " ('" + argument.rows + "' x '" + argument.columns +
                            "'); pass such a buffer, or describe how it holds the matrix (Buffer::describe)");
    }
    return {access, true, declaration, std::make_shared<const HostLayout>(host)};
  }

  std::uint64_t size_argument(const std::string& parameter) const {
    const std::optional<std::uint64_t> value = integer_value(kernel_.args[position(parameter)]);
    if (!value) throw InvalidArgument(prefix() + "'" + parameter + "' must be a non-negative integer");
    return *value;
  }

 private:
  const TunableKernel& tunable_;
  const KernelWork& kernel_;
  const std::vector<Access>& accesses_;
  std::vector<std::string> names_;
};

}  // namespace

std::vector<LayoutBinding> bind_layouts(const TunableKernel& tunable, const KernelWork& kernel,
                                        const std::vector<Access>& accesses) {
  if (tunable.records.empty() && tunable.matrices.empty()) return {};
  const Binder binder(tunable, kernel, accesses);
  std::vector<LayoutBinding> bindings;
  for (std::size_t r = 0; r < tunable.records.size(); ++r) bindings.push_back(binder.records(r));
  for (std::size_t m = 0; m < tunable.matrices.size(); ++m) bindings.push_back(binder.matrix(m));
  // A layout argument owns its buffer for the task: another access to the
  // same buffer would see neither the view nor the bytes converted back.
  for (const LayoutBinding& binding : bindings) {
    const BufferStorage* storage = accesses[binding.access].slice.storage.get();
    for (std::size_t other = 0; other < accesses.size(); ++other) {
      if (other != binding.access && accesses[other].slice.storage.get() == storage) {
        const std::string& parameter = binding.matrix ? tunable.matrices[binding.declaration].parameter
                                                      : tunable.records[binding.declaration].parameter;
        throw InvalidArgument(binder.prefix() + "the buffer passed as '" + parameter +
                              "' is passed again as buffer argument " + std::to_string(other) +
                              "; a layout argument must be the task's only access to its buffer");
      }
    }
  }
  return bindings;
}

}  // namespace alloy::detail
