// The layouts a tunable kernel's configuration chooses for its record and
// matrix arguments, their checks and the defines that apply them.
#include "tunable_layouts.hpp"

#include <algorithm>

#include "alloy/error.hpp"

namespace alloy {
namespace {

// The name of the value `configuration` gives the parameter `name`; the
// fallback when the kernel has no such parameter (no layout tuned).
std::string chosen_value_name(const TunableKernel& kernel, const std::string& name,
                              const Configuration& configuration, const std::string& fallback) {
  if (name.empty()) return fallback;
  const std::optional<std::size_t> index = kernel.parameter_index(name);
  if (!index) throw InvalidArgument("tunable kernel '" + kernel.name + "': no layout parameter '" + name + "'");
  const TuningParameter& parameter = kernel.parameters[*index];
  const std::int64_t value = *index < configuration.size() ? configuration[*index] : parameter.default_value;
  const auto at = std::find(parameter.values.begin(), parameter.values.end(), value);
  if (at == parameter.values.end() || parameter.value_names.empty()) {
    throw InvalidArgument("tunable kernel '" + kernel.name + "': layout parameter '" + name + "' has no name for " +
                          std::to_string(value));
  }
  return parameter.value_names[static_cast<std::size_t>(at - parameter.values.begin())];
}

template <class Layout>
Layout parsed(const TunableKernel& kernel, const std::string& parameter, const std::string& text) {
  const std::optional<Layout> layout = Layout::parse(text);
  if (!layout) {
    throw InvalidArgument("tunable kernel '" + kernel.name + "': layout parameter '" + parameter +
                          "' names '" + text + "', which is not a layout");
  }
  return *layout;
}

}  // namespace

RecordLayout record_layout(const TunableKernel& kernel, const RecordArgument& argument,
                           const Configuration& configuration) {
  return parsed<RecordLayout>(kernel, argument.layout,
                              chosen_value_name(kernel, argument.layout, configuration, "aos"));
}

MatrixLayout matrix_layout(const TunableKernel& kernel, const MatrixArgument& argument,
                           const Configuration& configuration) {
  return parsed<MatrixLayout>(kernel, argument.layout,
                              chosen_value_name(kernel, argument.layout, configuration, "row_major"));
}

std::vector<std::byte> matrix_argument_bytes(const TunableKernel& kernel, const Configuration& configuration,
                                             const std::string& parameter, const HostMatrix& host,
                                             std::span<const std::byte> matrix) {
  const auto argument = std::find_if(kernel.matrices.begin(), kernel.matrices.end(),
                                     [&](const MatrixArgument& m) { return m.parameter == parameter; });
  if (argument == kernel.matrices.end()) {
    throw InvalidArgument("tunable kernel '" + kernel.name + "': no matrix argument '" + parameter + "'");
  }
  const MatrixPlacement placement(argument->element, matrix_layout(kernel, *argument, configuration));
  std::vector<std::byte> device(placement.elements(host.rows, host.columns) * size_of(argument->element));
  pack_matrix(host, matrix, placement, device);
  return device;
}

std::string layout_defines(const TunableKernel& kernel, const Configuration& configuration) {
  std::string options;
  for (const RecordArgument& argument : kernel.records) {
    const RecordPlacement placement(argument.fields, record_layout(kernel, argument, configuration));
    options.append(" ").append(placement.defines(argument.parameter, argument.count));
  }
  for (const MatrixArgument& argument : kernel.matrices) {
    const MatrixPlacement placement(argument.element, matrix_layout(kernel, argument, configuration));
    options.append(" ").append(placement.defines(argument.parameter, argument.rows, argument.columns));
  }
  return options.empty() ? options : options.substr(1);
}

void validate_layouts(const TunableKernel& kernel) {
  const std::string prefix = "tunable kernel '" + kernel.name + "': ";
  std::vector<std::string> parameters;
  for (const RecordArgument& argument : kernel.records) parameters.push_back(argument.parameter);
  for (const MatrixArgument& argument : kernel.matrices) parameters.push_back(argument.parameter);
  for (const std::string& parameter : parameters) {
    if (std::count(parameters.begin(), parameters.end(), parameter) > 1) {
      throw InvalidArgument(prefix + "kernel parameter '" + parameter + "' is given two layouts");
    }
  }
  // Every value of each layout parameter must name a layout: build the
  // defines of each, which checks names, fields and counts as well.
  auto check_every_value = [&](const std::string& layout_parameter, auto&& check) {
    Configuration configuration = kernel.default_configuration();
    if (layout_parameter.empty()) return check(configuration);
    const std::size_t index = kernel.parameter_index(layout_parameter).value_or(kernel.parameters.size());
    if (index == kernel.parameters.size()) {
      throw InvalidArgument(prefix + "no layout parameter '" + layout_parameter + "'");
    }
    if (kernel.parameters[index].value_names.empty()) {
      throw InvalidArgument(prefix + "layout parameter '" + layout_parameter + "' must name its values as layouts");
    }
    for (std::int64_t value : kernel.parameters[index].values) {
      configuration[index] = value;
      check(configuration);
    }
  };
  for (const RecordArgument& argument : kernel.records) {
    check_every_value(argument.layout, [&](const Configuration& configuration) {
      RecordPlacement(argument.fields, record_layout(kernel, argument, configuration))
          .defines(argument.parameter, argument.count);
    });
  }
  for (const MatrixArgument& argument : kernel.matrices) {
    check_every_value(argument.layout, [&](const Configuration& configuration) {
      MatrixPlacement(argument.element, matrix_layout(kernel, argument, configuration))
          .defines(argument.parameter, argument.rows, argument.columns);
    });
  }
}

std::string layout_description(const TunableKernel& kernel) {
  std::string text;
  for (const RecordArgument& argument : kernel.records) {
    text.append("\nr ").append(argument.parameter).append(" ").append(argument.count).append(" ").append(argument.layout);
    for (const FieldFormat& field : argument.fields) {
      text.append(" ").append(field.name).append(":").append(to_string(field.type));
    }
  }
  for (const MatrixArgument& argument : kernel.matrices) {
    text.append("\nx ").append(argument.parameter).append(" ").append(to_string(argument.element)).append(" ");
    text.append(argument.rows).append(" ").append(argument.columns).append(" ").append(argument.layout);
  }
  return text;
}

}  // namespace alloy
