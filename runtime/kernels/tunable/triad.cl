// alloy.triad: a[i] = b[i] + scalar * c[i] over n floats (STREAM's triad), tunable, in the portable alloy dialect.
//
// Work-group g handles the WGS * WPT elements from g * WGS * WPT on: at step
// w its work-items touch WGS neighbouring elements (coalesced on GPUs,
// unit-stride lanes for a CPU vectorizer), and the group's whole block is
// contiguous (streamed by a CPU's prefetcher). Striding by the global size
// instead would spread each CPU work-group over WPT pages of every array.
// The host launches n / WPT work-items, rounded up to whole groups; the last
// group's elements are bounds-checked.

// Work-group size; the host launches with this local size. 0: the driver
// chooses it (NULL in OpenCL), and the kernel asks for it.
#ifndef WGS
#define WGS 64
#endif
#if WGS == 0
#define GROUP_SIZE ((int)get_local_size(0))
#else
#define GROUP_SIZE WGS
#endif
// Elements per work-item.
#ifndef WPT
#define WPT 1
#endif

KERNEL void triad(const int n, const float scalar, GLOBAL float* restrict a,
                  GLOBAL const float* restrict b, GLOBAL const float* restrict c) {
  const int first = (int)get_group_id(0) * (GROUP_SIZE * WPT) + (int)get_local_id(0);
#pragma unroll
  for (int w = 0; w < WPT; ++w) {
    const int i = first + w * GROUP_SIZE;
    if (i < n) a[i] = b[i] + scalar * c[i];
  }
}
