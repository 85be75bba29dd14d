// The same n-body step written against the host's struct as it is: what a
// program does without layouts. Body must match samples/nbody/nbody.hpp (nbody_layouts.cl is the same step through FIELD).
#ifndef RANGE
#define RANGE 16
#endif
#define SOFTENING 0.5f

typedef struct {
  float x, y, z;
  float vx, vy, vz;
  float mass;
  int id;
  float charge;
  int cell;
  char name[24];
} Body;

KERNEL void nbody_step_host_struct(const int n, const float dt, GLOBAL const Body* restrict bodies,
                                   GLOBAL Body* restrict moved) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float xi = bodies[i].x;
  const float yi = bodies[i].y;
  const float zi = bodies[i].z;
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  // As nbody_layouts.cl: unrolled and branch-free.
#pragma unroll
  for (int k = -RANGE; k <= RANGE; ++k) {
    const int j = i + k < 0 ? 0 : i + k >= n ? n - 1 : i + k;
    const float weight = i + k == j ? 1.0f : 0.0f;
    const float dx = bodies[j].x - xi;
    const float dy = bodies[j].y - yi;
    const float dz = bodies[j].z - zi;
    const float r2 = dx * dx + dy * dy + dz * dz + SOFTENING;
    const float inv2 = 1.0f / r2;
    const float inv6 = inv2 * inv2 * inv2;
    const float s = weight * bodies[j].mass * (inv6 - 2.0f * inv6 * inv6) * inv2;
    ax += s * dx;
    ay += s * dy;
    az += s * dz;
  }
  const float vx = bodies[i].vx + dt * ax;
  const float vy = bodies[i].vy + dt * ay;
  const float vz = bodies[i].vz + dt * az;
  moved[i].x = xi + dt * vx;
  moved[i].y = yi + dt * vy;
  moved[i].z = zi + dt * vz;
  moved[i].vx = vx;
  moved[i].vy = vy;
  moved[i].vz = vz;
  moved[i].mass = bodies[i].mass;
}
