// Kernels for the tuner's verification and outlier tests.
//
// offset_counts: out = in + 7 over uints spread across the whole range,
// where a float comparison with a relative tolerance would pass an element
// off by 1 or by 1024; ERROR adds that much to one element.
//
// spin_work: out = 2 × in after WORK units of spinning per work-item, and
// SLOW_FIRST more units in the first run after the inputs are written (a
// work-item's `fresh` flag is still 0 then): one slow run, as a shared
// device gives any configuration now and then.
//
// grow_work (below): a kernel that accumulates into its output.
//
// noisy_work (below): as if on a busy device, each run spins a different
// number of units, drawn from a generator whose state outlives the run.

#ifndef ERROR
#define ERROR 0
#endif
#ifndef WGS
#define WGS 16
#endif
#ifndef WORK
#define WORK 1
#endif
#ifndef UNIT
#define UNIT 1000
#endif
#ifndef SLOW_FIRST
#define SLOW_FIRST 12
#endif

KERNEL void offset_counts(const int n, GLOBAL const uint* restrict in, GLOBAL uint* restrict out) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  uint value = in[i] + 7u;
  if (i == n / 3) value += (uint)ERROR;
  out[i] = value;
}

KERNEL void spin_work(const int n, GLOBAL const float* restrict in, GLOBAL float* restrict out,
                      GLOBAL int* restrict fresh) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const int units = fresh[i] == 0 ? WORK + SLOW_FIRST : WORK;
  fresh[i] = 1;
  // A dependent chain the compiler cannot fold.
  float spin = in[i];
  for (int k = 0; k < units * UNIT; ++k) spin = spin * 0.999999f + 1e-7f;
  out[i] = in[i] * 2.0f + ((spin == 12345.0f) ? 1.0f : 0.0f);
}

// grow_work: spins (1 + out[i]) units, then adds 1 to out[i]: each run on
// an output that is not reset takes a unit longer than the one before.
KERNEL void grow_work(const int n, GLOBAL float* restrict out) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const float before = out[i];
  const int units = 1 + (int)before;
  float spin = before;
  for (int k = 0; k < units * UNIT; ++k) spin = spin * 0.999999f + 1e-7f;
  out[i] = before + 1.0f + ((spin == 12345.0f) ? 1.0f : 0.0f);
}

// byte_histogram: bins[v] counts the bytes equal to v, with n given as a
// 64-bit size; each work-item counts ITEMS consecutive bytes.
#ifndef ITEMS
#define ITEMS 1
#endif

KERNEL void byte_histogram(const ulong n, GLOBAL const uchar* restrict in, GLOBAL int* restrict bins) {
  const ulong first = (ulong)get_global_id(0) * ITEMS;
  for (ulong i = first; i < first + ITEMS && i < n; ++i) atomic_add_int(&bins[in[i]], 1);
}

// noisy_work: out = 2 × in after 2 to 9 units of spinning, the same for
// every work-item within a run and different from run to run: each
// work-item steps its own copy of a generator (all start from 0, so the
// copies agree), which the harness does not reset between runs. VARIANT
// changes nothing: its configurations are equally fast, and only noise
// tells them apart.
#ifndef VARIANT
#define VARIANT 0
#endif

KERNEL void noisy_work(const int n, GLOBAL const float* restrict in, GLOBAL float* restrict out,
                       GLOBAL uint* restrict state) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const uint drawn = state[i] * 1103515245u + 12345u;
  state[i] = drawn;
  const int units = 2 + (int)((drawn >> 16) % 8u) + VARIANT * 0;
  float spin = in[i];
  for (int k = 0; k < units * UNIT; ++k) spin = spin * 0.999999f + 1e-7f;
  out[i] = in[i] * 2.0f + ((spin == 12345.0f) ? 1.0f : 0.0f);
}
