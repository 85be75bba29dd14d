// Tuning-space arithmetic shared by the runtime (applying a profile) and the
// tuner (searching): products, constraints, defines and launch geometry.
#include "alloy/tunable_kernel.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "alloy/dialect.hpp"
#include "alloy/error.hpp"
#include "tunable_layouts.hpp"

namespace alloy {
namespace {

// Products saturate instead of overflowing: a saturated value fails every
// limit check, which is the right answer for a configuration that large.
constexpr std::int64_t saturated = std::numeric_limits<std::int64_t>::max() / 4;

std::int64_t saturating_multiply(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > saturated / b) return saturated;
  return a * b;
}

void check_product(const TunableKernel& kernel, const ParameterProduct& product,
                   const std::string& where) {
  if (product.factor < 0) {
    throw InvalidArgument("tunable kernel '" + kernel.name + "': " + where +
                          " has a negative factor; products are sizes and counts");
  }
  for (const std::string& name : product.parameters) {
    if (!kernel.parameter_index(name)) {
      throw InvalidArgument("tunable kernel '" + kernel.name + "': " + where +
                            " names parameter '" + name + "', which it does not declare");
    }
  }
  for (unsigned dimension : product.problem_dimensions) {
    if (dimension > 2) {
      throw InvalidArgument("tunable kernel '" + kernel.name + "': " + where +
                            " names problem dimension " + std::to_string(dimension) +
                            "; dimensions are 0, 1 and 2");
    }
  }
}

bool holds(const TunableKernel& kernel, const TuningConstraint& constraint,
           const Configuration& configuration, const Extent& problem) {
  const std::int64_t left = evaluate(kernel, constraint.left, configuration, problem);
  const std::int64_t right = evaluate(kernel, constraint.right, configuration, problem);
  switch (constraint.kind) {
    case TuningConstraint::Kind::divides: return left != 0 && right % left == 0;
    case TuningConstraint::Kind::at_most: return left <= right;
    case TuningConstraint::Kind::equal: return left == right;
  }
  return false;
}

std::string describe_constraint(const TuningConstraint& constraint) {
  auto text = [&](const ParameterProduct& product) {
    std::string out;
    if (product.factor != 1 || (product.parameters.empty() && product.problem_dimensions.empty())) {
      out = std::to_string(product.factor);
    }
    for (const std::string& name : product.parameters) out.append(out.empty() ? "" : "*").append(name);
    for (unsigned d : product.problem_dimensions) {
      out.append(out.empty() ? "" : "*").append("problem[").append(std::to_string(d)).append("]");
    }
    return out;
  };
  switch (constraint.kind) {
    case TuningConstraint::Kind::divides:
      return text(constraint.left) + " divides " + text(constraint.right);
    case TuningConstraint::Kind::at_most:
      return text(constraint.left) + " <= " + text(constraint.right);
    case TuningConstraint::Kind::equal:
      return text(constraint.left) + " == " + text(constraint.right);
  }
  return {};
}

// A launch rule whose local size is 0 leaves the work-group size to the
// driver. It must do so in every dimension: OpenCL takes no local size or a
// whole one, and CUDA and HIP pick a block only as a whole.
bool leaves_local_size_to_driver(const TunableKernel& kernel, const Configuration& configuration,
                                 const Extent& problem) {
  if (kernel.launch.empty()) return false;
  for (const LaunchDimensionRule& rule : kernel.launch) {
    if (evaluate(kernel, rule.local, configuration, problem) != 0) return false;
  }
  return true;
}

}  // namespace

Configuration TunableKernel::default_configuration() const {
  Configuration configuration;
  configuration.reserve(parameters.size());
  for (const TuningParameter& parameter : parameters) configuration.push_back(parameter.default_value);
  return configuration;
}

std::optional<std::size_t> TunableKernel::parameter_index(const std::string& parameter_name) const {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].name == parameter_name) return i;
  }
  return std::nullopt;
}

std::string TunableKernel::source_hash() const {
  const std::uint64_t hash = stable_hash(source.source + '\n' + source.options + '\n' + kernel_name);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string TunableKernel::description_hash() const {
  std::string text = name + '\n' + source_hash();
  auto add_product = [&](const ParameterProduct& product) {
    text.append("(").append(std::to_string(product.factor));
    for (const std::string& parameter : product.parameters) text.append("*").append(parameter);
    for (unsigned d : product.problem_dimensions) text.append("*$").append(std::to_string(d));
    text.append(")");
  };
  for (const TuningParameter& parameter : parameters) {
    text.append("\np ").append(parameter.name).append(" ").append(std::to_string(parameter.default_value));
    for (std::int64_t value : parameter.values) text.append(" ").append(std::to_string(value));
  }
  for (const TuningConstraint& constraint : constraints) {
    text.append("\nc ").append(std::to_string(static_cast<int>(constraint.kind)));
    add_product(constraint.left);
    add_product(constraint.right);
  }
  for (const LaunchDimensionRule& rule : launch) {
    text.append("\nl ").append(std::to_string(rule.problem_dimension));
    add_product(rule.multiply);
    add_product(rule.divide);
    add_product(rule.local);
  }
  for (const ParameterProduct& term : local_memory_bytes) {
    text.append("\nm ");
    add_product(term);
  }
  text += layout_description(*this);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(stable_hash(text)));
  return hash;
}

void TunableKernel::validate() const {
  const std::string prefix = "tunable kernel '" + name + "': ";
  if (name.empty()) throw InvalidArgument("a tunable kernel needs a name");
  if (kernel_name.empty()) throw InvalidArgument(prefix + "no kernel entry point named");
  if (launch.empty() || launch.size() > 3) {
    throw InvalidArgument(prefix + "needs one to three launch dimension rules, has " +
                          std::to_string(launch.size()));
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const TuningParameter& parameter = parameters[i];
    if (parameter.name.empty() || parameter.values.empty()) {
      throw InvalidArgument(prefix + "parameter " + std::to_string(i) +
                            " needs a name and at least one value");
    }
    if (std::count_if(parameters.begin(), parameters.end(),
                      [&](const TuningParameter& p) { return p.name == parameter.name; }) > 1) {
      throw InvalidArgument(prefix + "parameter '" + parameter.name + "' is declared twice");
    }
    if (std::any_of(parameter.values.begin(), parameter.values.end(),
                    [](std::int64_t value) { return value < 0; })) {
      throw InvalidArgument(prefix + "parameter '" + parameter.name +
                            "' has a negative value; tunables are sizes, counts and switches");
    }
    if (std::find(parameter.values.begin(), parameter.values.end(), parameter.default_value) ==
        parameter.values.end()) {
      throw InvalidArgument(prefix + "the default of '" + parameter.name + "' (" +
                            std::to_string(parameter.default_value) + ") is not among its values");
    }
    if (!parameter.value_names.empty() && parameter.value_names.size() != parameter.values.size()) {
      throw InvalidArgument(prefix + "parameter '" + parameter.name +
                            "' names some of its values but not all");
    }
  }
  for (const TuningConstraint& constraint : constraints) {
    check_product(*this, constraint.left, "a constraint");
    check_product(*this, constraint.right, "a constraint");
  }
  for (const LaunchDimensionRule& rule : launch) {
    if (rule.problem_dimension > 2) {
      throw InvalidArgument(prefix + "a launch rule reads problem dimension " +
                            std::to_string(rule.problem_dimension));
    }
    check_product(*this, rule.multiply, "a launch rule");
    check_product(*this, rule.divide, "a launch rule");
    check_product(*this, rule.local, "a launch rule");
  }
  for (const ParameterProduct& term : local_memory_bytes) check_product(*this, term, "local memory");
  validate_layouts(*this);
}

DeviceLimits DeviceLimits::of(const DeviceInfo& info) {
  return {info.max_work_group_size, info.max_work_item_sizes, info.local_memory_bytes};
}

std::int64_t evaluate(const TunableKernel& kernel, const ParameterProduct& product,
                      const Configuration& configuration, const Extent& problem) {
  std::int64_t value = product.factor;
  for (const std::string& name : product.parameters) {
    const auto index = kernel.parameter_index(name);
    if (!index || *index >= configuration.size()) {
      throw InvalidArgument("tunable kernel '" + kernel.name + "': no value for parameter '" +
                            name + "'");
    }
    value = saturating_multiply(value, configuration[*index]);
  }
  for (unsigned dimension : product.problem_dimensions) {
    value = saturating_multiply(value, static_cast<std::int64_t>(problem[dimension]));
  }
  return value;
}

std::optional<std::string> check_configuration(const TunableKernel& kernel,
                                               const Configuration& configuration,
                                               const Extent& problem,
                                               const DeviceLimits& limits) {
  if (configuration.size() != kernel.parameters.size()) {
    return "has " + std::to_string(configuration.size()) + " values for " +
           std::to_string(kernel.parameters.size()) + " parameters";
  }
  for (std::size_t i = 0; i < configuration.size(); ++i) {
    const auto& values = kernel.parameters[i].values;
    if (std::find(values.begin(), values.end(), configuration[i]) == values.end()) {
      return kernel.parameters[i].name + "=" + std::to_string(configuration[i]) +
             " is not one of its values";
    }
  }
  for (const TuningConstraint& constraint : kernel.constraints) {
    if (!holds(kernel, constraint, configuration, problem)) {
      return "breaks " + describe_constraint(constraint) + " (here " +
             std::to_string(evaluate(kernel, constraint.left, configuration, problem)) + " and " +
             std::to_string(evaluate(kernel, constraint.right, configuration, problem)) + ")";
    }
  }
  const bool driver_chooses = leaves_local_size_to_driver(kernel, configuration, problem);
  std::int64_t group_size = 1;
  for (std::size_t d = 0; d < kernel.launch.size(); ++d) {
    const LaunchDimensionRule& rule = kernel.launch[d];
    const std::int64_t local = evaluate(kernel, rule.local, configuration, problem);
    const std::int64_t multiply = evaluate(kernel, rule.multiply, configuration, problem);
    const std::int64_t divide = evaluate(kernel, rule.divide, configuration, problem);
    if (multiply <= 0 || divide <= 0 || local < 0 || (local == 0 && !driver_chooses)) {
      return "gives launch dimension " + std::to_string(d) + " a size of zero or less" +
             (local == 0 ? " (a local size of 0, left to the driver, must be 0 in every dimension)" : "");
    }
    if (driver_chooses) continue;
    if (limits.max_work_item_sizes[d] != 0 &&
        static_cast<std::size_t>(local) > limits.max_work_item_sizes[d]) {
      return "needs " + std::to_string(local) + " work-items in dimension " + std::to_string(d) +
             "; the device allows " + std::to_string(limits.max_work_item_sizes[d]);
    }
    group_size = saturating_multiply(group_size, local);
  }
  if (limits.max_work_group_size != 0 &&
      static_cast<std::size_t>(group_size) > limits.max_work_group_size) {
    return "needs work-groups of " + std::to_string(group_size) + "; the device allows " +
           std::to_string(limits.max_work_group_size);
  }
  std::int64_t local_bytes = 0;
  for (const ParameterProduct& term : kernel.local_memory_bytes) {
    local_bytes = std::min(saturated, local_bytes + evaluate(kernel, term, configuration, problem));
  }
  if (limits.local_memory_bytes != 0 &&
      static_cast<std::size_t>(local_bytes) > limits.local_memory_bytes) {
    return "needs " + std::to_string(local_bytes) + " bytes of local memory; the device has " +
           std::to_string(limits.local_memory_bytes);
  }
  return std::nullopt;
}

ProgramSource configured_source(const TunableKernel& kernel, const Configuration& configuration) {
  ProgramSource source = kernel.source;
  for (std::size_t i = 0; i < kernel.parameters.size() && i < configuration.size(); ++i) {
    if (!source.options.empty()) source.options += ' ';
    source.options.append("-D").append(kernel.parameters[i].name).append("=").append(
        std::to_string(configuration[i]));
  }
  const std::string layouts = layout_defines(kernel, configuration);
  if (!layouts.empty()) source.options += (source.options.empty() ? "" : " ") + layouts;
  return source;
}

LaunchRange configured_launch(const TunableKernel& kernel, const Configuration& configuration,
                              const Extent& problem) {
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{1, 1, 1};
  // Every local size 0: the driver picks the work-group (NULL in OpenCL),
  // and the global size is the item count, not rounded up to groups.
  const bool driver_chooses = leaves_local_size_to_driver(kernel, configuration, problem);
  for (std::size_t d = 0; d < kernel.launch.size(); ++d) {
    const LaunchDimensionRule& rule = kernel.launch[d];
    const auto group = driver_chooses ? std::size_t{1}
                                      : static_cast<std::size_t>(evaluate(kernel, rule.local, configuration, problem));
    const auto multiply = static_cast<std::size_t>(evaluate(kernel, rule.multiply, configuration, problem));
    const auto divide = static_cast<std::size_t>(evaluate(kernel, rule.divide, configuration, problem));
    if (group == 0 || divide == 0) {
      throw InvalidArgument("tunable kernel '" + kernel.name + "': configuration " +
                            describe(kernel, configuration) + " gives launch dimension " +
                            std::to_string(d) + " a size of zero");
    }
    const std::size_t items = (problem[rule.problem_dimension] * multiply + divide - 1) / divide;
    global[d] = std::max<std::size_t>(1, (items + group - 1) / group) * group;
    local[d] = group;
  }
  const Extent global_size = kernel.launch.size() == 1   ? Extent(global[0])
                            : kernel.launch.size() == 2 ? Extent(global[0], global[1])
                                                        : Extent(global[0], global[1], global[2]);
  if (driver_chooses) return LaunchRange(global_size);
  const Extent local_size = kernel.launch.size() == 1   ? Extent(local[0])
                           : kernel.launch.size() == 2 ? Extent(local[0], local[1])
                                                       : Extent(local[0], local[1], local[2]);
  return LaunchRange(global_size, local_size);
}

std::string describe(const TunableKernel& kernel, const Configuration& configuration) {
  std::string text;
  for (std::size_t i = 0; i < kernel.parameters.size() && i < configuration.size(); ++i) {
    const TuningParameter& parameter = kernel.parameters[i];
    if (!text.empty()) text += ' ';
    text.append(parameter.name).append("=");
    const auto at = std::find(parameter.values.begin(), parameter.values.end(), configuration[i]);
    if (!parameter.value_names.empty() && at != parameter.values.end()) {
      text.append(parameter.value_names[static_cast<std::size_t>(at - parameter.values.begin())]);
    } else {
      text.append(std::to_string(configuration[i]));
    }
  }
  return text;
}

}  // namespace alloy
