// The n-body sample's parts: bodies, their host description, the kernels.
#include "nbody.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "embedded/nbody_host_struct_source.hpp"
#include "embedded/nbody_layouts_source.hpp"

namespace nbody {

std::vector<Body> make_bodies(int n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<Body> bodies(std::size_t(std::max(n, 0)));
  for (int i = 0; i < n; ++i) {
    Body& b = bodies[std::size_t(i)];
    // Along a line with a little spread: neighbours by index are
    // neighbours in space, as a cell list keeps them.
    b = {float(i) + 0.1f * unit(random), unit(random), unit(random), 0.1f * unit(random),
         0.1f * unit(random), 0.1f * unit(random), 0.5f + 0.5f * std::fabs(unit(random)), i, unit(random), i / 32, {}};
    std::snprintf(b.name, sizeof b.name, "body %d", i);
  }
  return bodies;
}

alloy::HostRecord body_record() {
  return alloy::host_record<Body>(
      "Body", {ALLOY_HOST_FIELD(Body, x), ALLOY_HOST_FIELD(Body, y), ALLOY_HOST_FIELD(Body, z),
               ALLOY_HOST_FIELD(Body, vx), ALLOY_HOST_FIELD(Body, vy), ALLOY_HOST_FIELD(Body, vz),
               ALLOY_HOST_FIELD(Body, mass), ALLOY_HOST_FIELD(Body, id), ALLOY_HOST_FIELD(Body, charge),
               ALLOY_HOST_FIELD(Body, cell)});
}

const alloy::TunableKernel& tuned_step() {
  static const alloy::TunableKernel kernel = [] {
    alloy::TunableKernel k;
    k.name = "samples.nbody";
    k.source = {"nbody_layouts.cl", std::string(alloy_kernels::nbody_layouts_source),
                "-DRANGE=" + std::to_string(range)};
    k.kernel_name = "nbody_step";
    k.parameters = {{"LAYOUT", {0, 1, 2, 3, 4}, 0, {"aos", "soa", "aosoa:4", "aosoa:8", "aosoa:16"}},
                    {"WGS", {16, 32, 64, 128, 256}, 64, {}}};
    k.launch = {{0, {}, {}, {1, {"WGS"}, {}}}};
    const std::vector<alloy::FieldFormat> fields = {
        {"x", alloy::ScalarType::f32},  {"y", alloy::ScalarType::f32},  {"z", alloy::ScalarType::f32},
        {"vx", alloy::ScalarType::f32}, {"vy", alloy::ScalarType::f32}, {"vz", alloy::ScalarType::f32},
        {"mass", alloy::ScalarType::f32}};
    k.records = {{"bodies", fields, "n", "LAYOUT"}, {"moved", fields, "n", "LAYOUT"}};
    k.validate();
    return k;
  }();
  return kernel;
}

const alloy::ProgramSource& host_struct_step() {
  static const alloy::ProgramSource source = {"nbody_host_struct.cl",
                                              std::string(alloy_kernels::nbody_host_struct_source),
                                              "-DRANGE=" + std::to_string(range)};
  return source;
}

alloy::Graph steps_graph(bool fields, int n, int steps, alloy::Buffer<Body>& a, alloy::Buffer<Body>& b) {
  alloy::Graph graph;
  const std::size_t groups = (std::size_t(n) + host_struct_group - 1) / host_struct_group;
  const alloy::LaunchRange launch(alloy::Extent(groups * host_struct_group), alloy::Extent(host_struct_group));
  for (int s = 0; s < steps; ++s) {
    alloy::Buffer<Body>& from = s % 2 == 0 ? a : b;
    alloy::Buffer<Body>& to = s % 2 == 0 ? b : a;
    if (fields) {
      graph.kernel(tuned_step(), alloy::Extent(std::size_t(n)), {n, time_step, alloy::read(from), alloy::write(to)});
    } else {
      graph.kernel(host_struct_step(), host_struct_kernel, launch, {n, time_step, alloy::read(from), alloy::write(to)});
    }
  }
  return graph;
}

void step_on_host(const std::vector<Body>& bodies, std::vector<Body>& moved, float dt) {
  const int n = int(bodies.size());
  moved = bodies;
  for (int i = 0; i < n; ++i) {
    const Body& b = bodies[std::size_t(i)];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int k = -range; k <= range; ++k) {
      // As the kernels: a neighbour past either end weighs 0.
      const int j = i + k < 0 ? 0 : i + k >= n ? n - 1 : i + k;
      const float weight = i + k == j ? 1.0f : 0.0f;
      const Body& o = bodies[std::size_t(j)];
      const float dx = o.x - b.x, dy = o.y - b.y, dz = o.z - b.z;
      const float r2 = dx * dx + dy * dy + dz * dz + 0.5f;
      const float inv2 = 1.0f / r2;
      const float inv6 = inv2 * inv2 * inv2;
      const float s = weight * o.mass * (inv6 - 2.0f * inv6 * inv6) * inv2;
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    Body& m = moved[std::size_t(i)];
    m.vx = b.vx + dt * ax;
    m.vy = b.vy + dt * ay;
    m.vz = b.vz + dt * az;
    m.x = b.x + dt * m.vx;
    m.y = b.y + dt * m.vy;
    m.z = b.z + dt * m.vz;
  }
}

double largest_difference(const std::vector<Body>& a, const std::vector<Body>& b) {
  double worst = a.size() == b.size() ? 0.0 : INFINITY;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const float pairs[][2] = {{a[i].x, b[i].x},   {a[i].y, b[i].y},   {a[i].z, b[i].z},
                              {a[i].vx, b[i].vx}, {a[i].vy, b[i].vy}, {a[i].vz, b[i].vz}};
    for (const auto& pair : pairs) {
      const double scale = std::max({std::fabs(double(pair[0])), std::fabs(double(pair[1])), 1.0});
      const double difference = std::fabs(double(pair[0]) - double(pair[1])) / scale;
      worst = std::isnan(difference) ? INFINITY : std::max(worst, difference);
    }
  }
  return worst;
}

}  // namespace nbody
