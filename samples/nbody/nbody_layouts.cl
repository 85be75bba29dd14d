// One n-body step over records in the layout the tuner chose: FIELD(p, i, x)
// is field x of body i wherever the layout puts it (docs/layouts.md).
//
// Short-range forces: the bodies are sorted along x (a one-dimensional cell
// list), and each feels the RANGE bodies on either side of it. Neighbouring
// work-items therefore read neighbouring bodies: in a structure of arrays
// those reads are contiguous, in an array of structures they are strided.
#ifndef RANGE
#define RANGE 16
#endif
#define SOFTENING 0.5f

KERNEL void nbody_step(const int n, const float dt, GLOBAL const uchar* restrict bodies,
                       GLOBAL uchar* restrict moved) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float xi = FIELD(bodies, i, x);
  const float yi = FIELD(bodies, i, y);
  const float zi = FIELD(bodies, i, z);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  // Unrolled and branch-free, so that a compiler may run neighbouring
  // work-items in vector lanes: a neighbour past either end weighs 0, and
  // the body itself (dx = dy = dz = 0) adds exactly 0.
#pragma unroll
  for (int k = -RANGE; k <= RANGE; ++k) {
    const int j = i + k < 0 ? 0 : i + k >= n ? n - 1 : i + k;
    const float weight = i + k == j ? 1.0f : 0.0f;
    const float dx = FIELD(bodies, j, x) - xi;
    const float dy = FIELD(bodies, j, y) - yi;
    const float dz = FIELD(bodies, j, z) - zi;
    const float r2 = dx * dx + dy * dy + dz * dz + SOFTENING;
    const float inv2 = 1.0f / r2;
    const float inv6 = inv2 * inv2 * inv2;
    const float s = weight * FIELD(bodies, j, mass) * (inv6 - 2.0f * inv6 * inv6) * inv2;
    ax += s * dx;
    ay += s * dy;
    az += s * dz;
  }
  const float vx = FIELD(bodies, i, vx) + dt * ax;
  const float vy = FIELD(bodies, i, vy) + dt * ay;
  const float vz = FIELD(bodies, i, vz) + dt * az;
  FIELD(moved, i, x) = xi + dt * vx;
  FIELD(moved, i, y) = yi + dt * vy;
  FIELD(moved, i, z) = zi + dt * vz;
  FIELD(moved, i, vx) = vx;
  FIELD(moved, i, vy) = vy;
  FIELD(moved, i, vz) = vz;
  FIELD(moved, i, mass) = FIELD(bodies, i, mass);
}
