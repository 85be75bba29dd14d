// Kernels that fail on purpose, one way per MODE, for the tuner's tests:
// 0 right, 1 compile error, 2 wrong result, 3 launch refused (the kernel
// allows smaller work-groups than the launch asks), 4 slow enough to time out.

#ifndef MODE
#define MODE 0
#endif
#ifndef WGS
#define WGS 16
#endif
#ifndef SPIN
#define SPIN 1
#endif

#if MODE == 1
this is not a kernel;
#endif

#if MODE == 3 && defined(ALLOY_BACKEND_OPENCL)
#define WORK_GROUP_LIMIT __attribute__((reqd_work_group_size(8, 1, 1)))
#elif MODE == 3
#define WORK_GROUP_LIMIT __launch_bounds__(8)
#else
#define WORK_GROUP_LIMIT
#endif

KERNEL WORK_GROUP_LIMIT void scale_by_two(const int n, GLOBAL const float* restrict in,
                                          GLOBAL float* restrict out) {
  const int i = (int)get_global_id(0);
  if (i >= n) return;
  float value = in[i] * 2.0f;
#if MODE == 2
  if (i == n / 2) value += 1.0f;
#endif
#if MODE == 4
  // A dependent chain the compiler cannot fold: each work-item spins.
  float spin = value;
  for (int k = 0; k < SPIN; ++k) spin = spin * 0.999999f + 1e-7f;
  value += (spin == 12345.0f) ? 1.0f : 0.0f;
#endif
  out[i] = value;
}
