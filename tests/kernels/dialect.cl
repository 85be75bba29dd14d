// Kernels for the dialect's atomics and vectors: every operation on every
// type, on global and on local memory, with results the host checks exactly.

#ifndef WGS
#define WGS 64
#endif

// The 64-bit values of element i: beyond 32 bits, negative for long.
INLINE long long_value(uint v) { return (long)v * 4294967311L - 1099511627776L; }
INLINE ulong ulong_value(uint v) { return (ulong)v * 4294967311UL + 7UL; }

// Counts with a compare-exchange loop, as code without atomic add would.
#define CAS_INCREMENT(type, p)                                              \
  for (type seen = *(p);;) {                                                \
    const type old = atomic_cmpxchg_##type((p), seen, (type)(seen + 1));   \
    if (old == seen) break;                                                 \
    seen = old;                                                             \
  }

// Over values[0, n): ints[0..4] = sum, min, max, count by inc, count by cmpxchg
// of (int)v - 1000; uints[0..4] the same of v. With 64-bit atomics, longs and
// ulongs [0..3] = sum, min, max, count by cmpxchg of long_value / ulong_value;
// ints[5] = 1 says they ran.
KERNEL void global_atomics(const int n, GLOBAL const uint* restrict values, GLOBAL int* restrict ints,
                           GLOBAL uint* restrict uints, GLOBAL long* restrict longs,
                           GLOBAL ulong* restrict ulongs) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  const uint v = values[i];
  const int signed_v = (int)v - 1000;
  atomic_add_int(&ints[0], signed_v);
  atomic_min_int(&ints[1], signed_v);
  atomic_max_int(&ints[2], signed_v);
  atomic_inc_int(&ints[3]);
  CAS_INCREMENT(int, &ints[4]);
  atomic_add_uint(&uints[0], v);
  atomic_min_uint(&uints[1], v);
  atomic_max_uint(&uints[2], v);
  atomic_inc_uint(&uints[3]);
  CAS_INCREMENT(uint, &uints[4]);
#ifdef ALLOY_ATOMICS_64
  atomic_add_long(&longs[0], long_value(v));
  atomic_min_long(&longs[1], long_value(v));
  atomic_max_long(&longs[2], long_value(v));
  CAS_INCREMENT(long, &longs[3]);
  atomic_add_ulong(&ulongs[0], ulong_value(v));
  atomic_min_ulong(&ulongs[1], ulong_value(v));
  atomic_max_ulong(&ulongs[2], ulong_value(v));
  CAS_INCREMENT(ulong, &ulongs[3]);
  if (i == 0) ints[5] = 1;
#endif
}

// The same reductions in local memory, per work-group of WGS items: group g
// writes uints[5g ..] = sum, min, max, inc count, cmpxchg count of its v;
// floats[g] = the float sum of its v (small integers: exact in any order).
// With 64-bit atomics ulongs[4g ..] = sum, min, max, cmpxchg count.
KERNEL void local_atomics(const int n, GLOBAL const uint* restrict values, GLOBAL uint* restrict uints,
                          GLOBAL float* restrict floats, GLOBAL ulong* restrict ulongs) {
  LOCAL uint stats[5];
  LOCAL float float_sum[1];
#ifdef ALLOY_ATOMICS_64
  LOCAL ulong wide[4];
#endif
  const int lid = (int)get_local_id(0);
  const int g = (int)get_group_id(0);
  const int i = (int)get_global_id(0);
  if (lid == 0) {
    stats[0] = 0;
    stats[1] = 0xffffffffu;
    stats[2] = 0;
    stats[3] = 0;
    stats[4] = 0;
    float_sum[0] = 0.0f;
#ifdef ALLOY_ATOMICS_64
    wide[0] = 0;
    wide[1] = 0xffffffffffffffffUL;
    wide[2] = 0;
    wide[3] = 0;
#endif
  }
  local_barrier();
  if (i < n) {
    const uint v = values[i];
    atomic_add_uint(&stats[0], v);
    atomic_min_uint(&stats[1], v);
    atomic_max_uint(&stats[2], v);
    atomic_inc_uint(&stats[3]);
    CAS_INCREMENT(uint, &stats[4]);
    atomic_add_float_local(&float_sum[0], (float)v);
#ifdef ALLOY_ATOMICS_64
    atomic_add_ulong(&wide[0], ulong_value(v));
    atomic_min_ulong(&wide[1], ulong_value(v));
    atomic_max_ulong(&wide[2], ulong_value(v));
    CAS_INCREMENT(ulong, &wide[3]);
#endif
  }
  local_barrier();
  if (lid == 0) {
    for (int k = 0; k < 5; ++k) uints[5 * g + k] = stats[k];
    floats[g] = float_sum[0];
#ifdef ALLOY_ATOMICS_64
    for (int k = 0; k < 4; ++k) ulongs[4 * g + k] = wide[k];
#endif
  }
}

// For each group of four floats i < n4:
//   out4[i] = 2 * a + b / 2 - (1, 2, 3, 4) with a = in[i], b = in[i] reversed,
//   dots[i] = dot(a, a), halves[2i], [2i+1] = (a.xy + a.zw) * 3,
//   ints[i] = in_ints[i] * 2 + (1, 1, 1, 1) with its .w replaced by the .x.
KERNEL void vectors(const int n4, GLOBAL const float* restrict in, GLOBAL float* restrict out4,
                    GLOBAL float* restrict dots, GLOBAL float* restrict halves,
                    GLOBAL const int* restrict in_ints, GLOBAL int* restrict ints) {
  const int i = (int)get_global_id(0);
  if (i >= n4) return;
  const float4 a = vload4(i, in);
  const float4 b = make_float4(a.w, a.z, a.y, a.x);
  vstore4(2.0f * a + b / 2.0f - make_float4(1.0f, 2.0f, 3.0f, 4.0f), i, out4);
  dots[i] = dot(a, a);
  float2 pair = make_float2(a.x, a.y);
  pair += make_float2(a.z, a.w);
  vstore2(pair * 3.0f, i, halves);
  int4 k = vload4(i, in_ints);
  k = make_int4(k.x * 2 + 1, k.y * 2 + 1, k.z * 2 + 1, k.x * 2 + 1);
  vstore4(k, i, ints);
}
