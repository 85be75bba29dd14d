// sharing sample kernels, in the portable alloy dialect.

// The background job's work: `steps` rounds of an integer hash per item,
// one result per work-group. Nothing here reads across work-groups, so a
// background executor may run it in slices.
KERNEL void churn(const int steps, GLOBAL uint* restrict out) {
  uint x = (uint)get_global_id(0);
  for (int i = 0; i < steps; ++i) x = x * 1664525u + 1013904223u;
  if (get_local_id(0) == 0) out[get_group_id(0)] = x;
}

// The latency-critical job's request: one small step per item.
KERNEL void respond(GLOBAL uint* restrict counts) { counts[get_global_id(0)] += 1u; }
