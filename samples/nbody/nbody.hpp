// The n-body sample's parts, shared with bench_kernels: the host's body
// struct as the program keeps it, the step as a layout-tuned kernel and as
// a kernel over the host struct itself, and the step on the host.
#pragma once

#include <cstdint>
#include <vector>

#include <alloy/alloy.hpp>

namespace nbody {

/// A body as the application keeps it: the fields the step needs, and
/// others (an id, a charge, a cell, a name) that only the host reads.
struct Body {
  float x, y, z;
  float vx, vy, vz;
  float mass;
  std::int32_t id;
  float charge;
  std::int32_t cell;
  char name[24];
};
static_assert(sizeof(Body) == 64, "nbody_host_struct.cl declares the same struct");

/// Bodies a neighbour's reach apart, as the step reads them (its RANGE).
inline constexpr int range = 16;
inline constexpr float time_step = 0.001f;

/// `n` bodies sorted along x, from `seed`.
std::vector<Body> make_bodies(int n, unsigned seed);

/// How the host holds a Body, for Buffer::describe.
alloy::HostRecord body_record();

/// The step through FIELD, "samples.nbody": LAYOUT chooses the records'
/// layout (aos, soa, aosoa:4, aosoa:8, aosoa:16) and WGS the work-group
/// size. Tasks take (n, dt, read(bodies), write(moved)) over problem n.
const alloy::TunableKernel& tuned_step();

/// The same step over the host struct as it is: a fixed kernel whose
/// arguments are (n, dt, read(bodies), write(moved)).
const alloy::ProgramSource& host_struct_step();
inline constexpr const char* host_struct_kernel = "nbody_step_host_struct";
/// The work-group size the host-struct kernel is launched with.
inline constexpr std::size_t host_struct_group = 64;

/// `steps` steps from `a` into `b` and back, as one graph (each reads what
/// the one before wrote): through FIELD (tuned_step) or over the host struct.
alloy::Graph steps_graph(bool fields, int n, int steps, alloy::Buffer<Body>& a, alloy::Buffer<Body>& b);

/// One step on the host, in the kernels' order of operations.
void step_on_host(const std::vector<Body>& bodies, std::vector<Body>& moved, float dt);

/// The largest difference between the positions and velocities of `a` and
/// `b`, relative to the larger magnitude, or absolute below 1.
double largest_difference(const std::vector<Body>& a, const std::vector<Body>& b);

}  // namespace nbody
