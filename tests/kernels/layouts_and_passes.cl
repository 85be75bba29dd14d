// Kernels for the tuner's layout and multi-pass tests.
//
// record_mix: records of four floats (x, y, z, w) in, records of two (x + y,
// z * w) out, both laid out as LAYOUT says: 0 an array of structures, 1 a
// structure of arrays, 2 blocks of four records.
//
// partial_sums, then finish_sums: a sum of uints in two passes; each
// work-item of the first adds ITEMS elements into partials, one work-item of
// the second adds the partials into sum[0].

#ifndef LAYOUT
#define LAYOUT 0
#endif
#ifndef WGS
#define WGS 16
#endif
#ifndef ITEMS
#define ITEMS 1
#endif

#if LAYOUT == 0
#define RECORD_ELEMENT(p, i, f, fields, n) (p)[(i) * (fields) + (f)]
#elif LAYOUT == 1
#define RECORD_ELEMENT(p, i, f, fields, n) (p)[(f) * (n) + (i)]
#else
#define RECORD_ELEMENT(p, i, f, fields, n) (p)[((i) / 4) * 4 * (fields) + (f) * 4 + (i) % 4]
#endif

KERNEL void record_mix(const int n, GLOBAL const float* restrict in, GLOBAL float* restrict out) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  RECORD_ELEMENT(out, i, 0, 2, n) = RECORD_ELEMENT(in, i, 0, 4, n) + RECORD_ELEMENT(in, i, 1, 4, n);
  RECORD_ELEMENT(out, i, 1, 2, n) = RECORD_ELEMENT(in, i, 2, 4, n) * RECORD_ELEMENT(in, i, 3, 4, n);
}

KERNEL void partial_sums(const int n, GLOBAL const uint* restrict in, GLOBAL uint* restrict partials) {
  const int first = (int)get_global_id(0) * ITEMS;
  if (first >= n) return;
  uint sum = 0;
  for (int i = first; i < first + ITEMS && i < n; ++i) sum += in[i];
  partials[first / ITEMS] = sum;
}

KERNEL void finish_sums(const int n, GLOBAL const uint* restrict partials, GLOBAL uint* restrict sum) {
  if (get_global_id(0) != 0) return;
  uint total = 0;
  for (int p = 0; p < (n + ITEMS - 1) / ITEMS; ++p) total += partials[p];
  sum[0] = total;
}
