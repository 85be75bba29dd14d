// alloy.reduce: out[0] += the sum of in[0..n) for floats, tunable, in the portable alloy dialect.
//
// Work-group g adds the WGS * WPT elements from g * WGS * WPT on: at step w
// its work-items read WGS neighbouring elements (coalesced on GPUs, unit-stride
// lanes for a CPU vectorizer), and the group's whole block is contiguous
// (streamed by a CPU's prefetcher, few pages). Striding by the global size
// instead would be as good on a GPU but spread each CPU work-group over WPT
// pages. The group then sums its WGS partial sums as a tree in local memory,
// and one work-item adds that to out[0] atomically. The host launches n / WPT
// work-items, rounded up to whole groups, and zeroes out[0] first.

// Work-group size, a power of two; the host launches with this local size.
#ifndef WGS
#define WGS 64
#endif
// Elements each work-item adds before the tree reduction.
#ifndef WPT
#define WPT 1
#endif

KERNEL void reduce(const int n, GLOBAL const float* restrict in, GLOBAL float* restrict out) {
  LOCAL float partial[WGS];
  const int lid = (int)get_local_id(0);
  const int first = (int)get_group_id(0) * (WGS * WPT) + lid;
  float sum = 0.0f;
#pragma unroll
  for (int w = 0; w < WPT; ++w) {
    const int i = first + w * WGS;
    if (i < n) sum += in[i];
  }
  partial[lid] = sum;
  local_barrier();
  // WGS is a power of two, so halving always pairs every element.
  for (int width = WGS / 2; width > 0; width /= 2) {
    if (lid < width) partial[lid] += partial[lid + width];
    local_barrier();
  }
  if (lid == 0) atomic_add_float(out, partial[0]);
}
