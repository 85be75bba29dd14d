// A kernel that updates layout-tuned records in place through FIELD: the
// runtime's ALLOY_particles_* defines say how they lie.

// For each of n records: x += y, count += id. Other fields are not named,
// so the runtime must leave them as they are.
KERNEL void record_advance(const int n, GLOBAL uchar* restrict particles) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  FIELD(particles, i, x) += FIELD(particles, i, y);
  FIELD(particles, i, count) += FIELD(particles, i, id);
}
