// The layout-tuned test kernels and their host records.
#include "support/layout_kernels.hpp"

#include <algorithm>
#include <cstddef>
#include <random>

#include "embedded/advance_layouts_source.hpp"
#include "embedded/matrix_layouts_source.hpp"
#include "embedded/record_layouts_source.hpp"

namespace alloy::test {

HostRecord particle_record() {
  return host_record<Particle>("Particle", {ALLOY_HOST_FIELD(Particle, x), ALLOY_HOST_FIELD(Particle, count),
                                            ALLOY_HOST_FIELD(Particle, flags), ALLOY_HOST_FIELD(Particle, id),
                                            ALLOY_HOST_FIELD(Particle, weight), ALLOY_HOST_FIELD(Particle, y)});
}

std::vector<Particle> random_particles(int n, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<Particle> particles(std::size_t(std::max(n, 0)));
  for (Particle& p : particles) {
    p = {static_cast<float>(random() % 1000) / 8.0f, static_cast<std::int64_t>(random()) << 20,
         static_cast<std::uint8_t>(random()), static_cast<std::int32_t>(random() % 100000) - 50000,
         static_cast<std::uint16_t>(random() % 60000), static_cast<float>(random() % 1000) / 4.0f};
  }
  return particles;
}

HostRecord step_result_record() {
  return host_record<StepResult>("StepResult", {ALLOY_HOST_FIELD(StepResult, small), ALLOY_HOST_FIELD(StepResult, tag),
                                                ALLOY_HOST_FIELD(StepResult, sum)});
}

TunableKernel record_step_kernel() {
  TunableKernel kernel;
  kernel.name = "test.record_step";
  kernel.source = {"record_layouts.cl", std::string(alloy_kernels::record_layouts_source), ""};
  kernel.kernel_name = "record_step";
  const std::vector<std::string> layouts = {"aos", "soa", "aosoa:4", "aosoa:5"};
  kernel.parameters = {{"PARTICLES", {0, 1, 2, 3}, 0, layouts}, {"RESULTS", {0, 1, 2, 3}, 0, layouts}};
  kernel.launch = {{0, {}, {}, {16, {}, {}}}};
  // The kernel's own field order, unlike the host's.
  kernel.records = {{"particles",
                     {{"id", ScalarType::i32}, {"x", ScalarType::f32}, {"y", ScalarType::f32},
                      {"count", ScalarType::i64}, {"flags", ScalarType::u8}, {"weight", ScalarType::u16}},
                     "n",
                     "PARTICLES"},
                    {"results",
                     {{"sum", ScalarType::f32}, {"tag", ScalarType::i64}, {"small", ScalarType::u16}},
                     "n",
                     "RESULTS"}};
  return kernel;
}

TunableKernel record_advance_kernel() {
  TunableKernel kernel;
  kernel.name = "test.record_advance";
  kernel.source = {"advance_layouts.cl", std::string(alloy_kernels::advance_layouts_source), ""};
  kernel.kernel_name = "record_advance";
  kernel.parameters = {{"PARTICLES", {0, 1, 2, 3}, 0, {"aos", "soa", "aosoa:4", "aosoa:5"}}};
  kernel.launch = {{0, {}, {}, {16, {}, {}}}};
  kernel.records = {{"particles",
                     {{"x", ScalarType::f32}, {"y", ScalarType::f32}, {"count", ScalarType::i64}, {"id", ScalarType::i32}},
                     "n",
                     "PARTICLES"}};
  return kernel;
}

TunableKernel with_only(TunableKernel kernel, const std::string& name, std::int64_t value) {
  TuningParameter& parameter = kernel.parameters[*kernel.parameter_index(name)];
  const auto at = std::find(parameter.values.begin(), parameter.values.end(), value);
  const std::string value_name = parameter.value_names[static_cast<std::size_t>(at - parameter.values.begin())];
  parameter.values = {value};
  parameter.default_value = value;
  parameter.value_names = {value_name};
  kernel.name += "." + name + "=" + value_name;
  return kernel;
}

TunableKernel matrix_step_kernel() {
  TunableKernel kernel;
  kernel.name = "test.matrix_step";
  kernel.source = {"matrix_layouts.cl", std::string(alloy_kernels::matrix_layouts_source), ""};
  kernel.kernel_name = "matrix_step";
  const std::vector<std::string> layouts = {"row_major", "column_major", "odd_padded:16", "tiles:8"};
  kernel.parameters = {{"A", {0, 1, 2, 3}, 0, layouts}, {"B", {0, 1, 2, 3}, 0, layouts}};
  kernel.launch = {{0, {}, {}, {8, {}, {}}}, {1, {}, {}, {8, {}, {}}}};
  kernel.matrices = {{"a", ScalarType::f32, "rows", "columns", "A"}, {"b", ScalarType::f32, "rows", "columns", "B"}};
  return kernel;
}

std::vector<Configuration> every_configuration(const TunableKernel& kernel) {
  std::vector<Configuration> configurations{{}};
  for (const TuningParameter& parameter : kernel.parameters) {
    std::vector<Configuration> longer;
    for (const Configuration& configuration : configurations) {
      for (std::int64_t value : parameter.values) {
        longer.push_back(configuration);
        longer.back().push_back(value);
      }
    }
    configurations = std::move(longer);
  }
  return configurations;
}

}  // namespace alloy::test
