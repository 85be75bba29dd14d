// Host layouts for the matrix arguments a harness leaves undescribed.
#include "packed_matrices.hpp"

#include <algorithm>
#include <cstring>

#include "alloy/error.hpp"
#include "alloy/kernel_args.hpp"

namespace alloy::autotune::detail {
namespace {

// The value the harness passes as the kernel parameter `name`.
std::size_t size_passed(const TuningTarget& target, const KernelSignature& signature, const std::string& name,
                        const Extent& problem) {
  const std::string where = "tuning " + target.kernel.name + ": matrix size '" + name + "' ";
  const auto found = std::find_if(signature.parameters.begin(), signature.parameters.end(),
                                  [&](const KernelParameter& parameter) { return parameter.name == name; });
  const auto position = static_cast<std::size_t>(found - signature.parameters.begin());
  if (found == signature.parameters.end() || position >= target.harness.arguments.size()) {
    throw InvalidArgument(where + "is not among the kernel's parameters the harness passes");
  }
  const HarnessArgument& argument = target.harness.arguments[position];
  switch (argument.kind) {
    case HarnessArgument::Kind::problem_dimension: return problem[unsigned(argument.index) % 3];
    case HarnessArgument::Kind::int_constant:
      if (argument.constant >= 0) return static_cast<std::size_t>(argument.constant);
      break;
    default: break;
  }
  throw InvalidArgument(where + "must be passed as a problem dimension or a non-negative integer constant");
}

}  // namespace

TuningTarget with_packed_matrices(const TuningTarget& target, const Extent& problem) {
  TuningTarget resolved = target;
  std::optional<KernelSignature> signature;
  for (const MatrixArgument& argument : target.kernel.matrices) {
    for (HarnessBuffer& buffer : resolved.harness.buffers) {
      if (buffer.name != argument.parameter || buffer.host_layout) continue;
      if (!signature) signature = find_kernel_signature(target.kernel.source.source, target.kernel.kernel_name);
      if (!signature) {
        throw InvalidArgument("tuning " + target.kernel.name + ": matrix arguments need the kernel declared once as "
                              "KERNEL void " + target.kernel.kernel_name + "(...) in its source");
      }
      HostMatrix matrix;
      matrix.rows = size_passed(target, *signature, argument.rows, problem);
      matrix.columns = size_passed(target, *signature, argument.columns, problem);
      matrix.element = argument.element;
      buffer.host_layout = matrix;
    }
  }
  return resolved;
}

}  // namespace alloy::autotune::detail
