// Kernels over records of two uints (a, b) in a layout-tuned argument, for
// the random program tests: the runtime's ALLOY_pairs_* defines say how the
// records lie.

// For each of n records: a = a * factor + offset, then b += a.
KERNEL void pair_scale(const int n, const uint factor, const uint offset, GLOBAL uint* restrict pairs) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const uint a = FIELD(pairs, i, a) * factor + offset;
  FIELD(pairs, i, a) = a;
  FIELD(pairs, i, b) += a;
}

// out[to] = the sum over the n records of a + 2 b, by one work-item.
KERNEL void pair_sum(const int n, GLOBAL const uint* restrict pairs, const int to, GLOBAL uint* restrict out) {
  if (get_global_id(0) != 0) return;
  uint sum = 0;
  for (int i = 0; i < n; ++i) sum += FIELD(pairs, i, a) + 2u * FIELD(pairs, i, b);
  out[to] = sum;
}
