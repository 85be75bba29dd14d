// A histogram of bytes: bins[v] counts the input bytes equal to v. Each
// work-item counts ITEMS bytes, consecutive or (STRIDED) a global size
// apart, with one global atomic per byte.
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef STRIDED
#define STRIDED 0
#endif

KERNEL void histogram(const ulong n, GLOBAL const uchar* restrict in, GLOBAL int* restrict bins) {
#if STRIDED
  const ulong step = (ulong)get_global_size(0);
  ulong i = (ulong)get_global_id(0);
#else
  const ulong step = 1;
  ulong i = (ulong)get_global_id(0) * ITEMS;
#endif
  for (int k = 0; k < ITEMS && i < n; ++k, i += step) atomic_add_int(&bins[in[i]], 1);
}
