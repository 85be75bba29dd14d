// A kernel that reads and writes layout-tuned arguments through FIELD: the
// runtime's ALLOY_<parameter>_* defines say how each argument lies.

// For each of n records: results.sum = x + y, results.tag = count * 3 + id,
// results.small = flags + weight.
KERNEL void record_step(const int n, GLOBAL const uchar* restrict particles, GLOBAL uchar* restrict results) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  FIELD(results, i, sum) = FIELD(particles, i, x) + FIELD(particles, i, y);
  FIELD(results, i, tag) = FIELD(particles, i, count) * 3 + FIELD(particles, i, id);
  FIELD(results, i, small) = (ushort)(FIELD(particles, i, flags) + FIELD(particles, i, weight));
}
