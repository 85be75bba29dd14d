// Kernels for the backend conformance tests: reductions, indexing, atomics, math.

// Work-group size of reduce_sum; the host must launch with this local size.
#ifndef WGS
#define WGS 64
#endif

// Sums each work-group's chunk of `input` (items at or beyond n count as 0)
// and writes one partial sum per group to partial_sums[group id].
KERNEL void reduce_sum(const int n, GLOBAL const float* restrict input,
                       GLOBAL float* restrict partial_sums) {
  LOCAL float scratch[WGS];
  const int lid = (int)get_local_id(0);
  const int gid = (int)get_global_id(0);
  scratch[lid] = gid < n ? input[gid] : 0.0f;
  local_barrier();
  // Tree reduction; WGS need not be a power of two.
  // (`half` would be a nicer name, but it is a type in OpenCL C.)
  for (int width = WGS; width > 1;) {
    const int upper = (width + 1) / 2;
    if (lid < width - upper) {
      scratch[lid] += scratch[lid + upper];
    }
    local_barrier();
    width = upper;
  }
  if (lid == 0) {
    partial_sums[get_group_id(0)] = scratch[0];
  }
}

// 2D indexing: out[y*width + x] = y*1000 + x and
// groups[y*width + x] = group id 0 + 100 * group id 1, for x, y inside the grid.
KERNEL void index_2d(const int width, const int height, GLOBAL int* restrict out,
                     GLOBAL int* restrict groups) {
  const int x = (int)get_global_id(0);
  const int y = (int)get_global_id(1);
  if (x < width && y < height) {
    out[y * width + x] = y * 1000 + x;
    groups[y * width + x] = (int)get_group_id(0) + 100 * (int)get_group_id(1);
  }
}

// Adds every values[i] (i < n) to *int_total and, as float, to *float_total.
KERNEL void atomic_sums(const int n, GLOBAL const int* restrict values,
                        GLOBAL int* restrict int_total, GLOBAL float* restrict float_total) {
  const int i = (int)get_global_id(0);
  if (i < n) {
    atomic_add_int(int_total, values[i]);
    atomic_add_float(float_total, (float)values[i]);
  }
}

// Does nothing: measures launch overhead and checks parameterless kernels.
KERNEL void empty() {}

// For i < n, with v = x[i]:
//   out[i] = mad(sqrt(fabs(v)), exp(-fabs(v)), log(1.0f + fabs(v)))
//          + fmin(v, 0.5f) + fmax(v, -0.5f) + clamp(v, -1.0f, 1.0f)
//          + rsqrt(1.0f + v * v) + pow(1.0f + fabs(v), 0.75f)
KERNEL void math_functions(const int n, GLOBAL const float* restrict x,
                           GLOBAL float* restrict out) {
  const int i = (int)get_global_id(0);
  if (i < n) {
    const float v = x[i];
    const float a = fabs(v);
    out[i] = mad(sqrt(a), exp(-a), log(1.0f + a)) + fmin(v, 0.5f) + fmax(v, -0.5f) +
             clamp(v, -1.0f, 1.0f) + rsqrt(1.0f + v * v) + pow(1.0f + a, 0.75f);
  }
}

// Busy work for ordering tests: each work-item runs `iterations` dependent
// steps, so the launch takes a predictable while.
KERNEL void spin(const int iterations, GLOBAL float* restrict out) {
  float x = (float)get_global_id(0);
  for (int i = 0; i < iterations; ++i) {
    x = x * 0.999999f + 1.0f;
  }
  out[get_global_id(0)] = x;
}

// Declared with an attribute: the runtime must still read its parameters.
#ifdef ALLOY_BACKEND_OPENCL
#define WORK_GROUP_OF_64 __attribute__((reqd_work_group_size(64, 1, 1)))
#else
#define WORK_GROUP_OF_64 __launch_bounds__(64)
#endif
KERNEL WORK_GROUP_OF_64 void add_attributed(
    const int n, GLOBAL int* restrict values) {
  const int i = (int)get_global_id(0);
  if (i < n) values[i] += 1;
}

// Declared through a macro: the runtime cannot read this declaration and
// must fall back on the backend's own argument count.
#define DECLARE_FILL_KERNEL(name) KERNEL void name(const int value, GLOBAL int* restrict out)
DECLARE_FILL_KERNEL(fill_hidden) {
  out[get_global_id(0)] = value;
}

// For executor tests: data[first + i] += value for i < count.
KERNEL void add_to_range(const int first, const int count, const int value,
                         GLOBAL int* restrict data) {
  const int i = (int)get_global_id(0);
  if (i < count) {
    data[first + i] += value;
  }
}

// For executor tests: out[i] = in[i] * factor + offset for i < n.
KERNEL void scale_offset(const int n, const int factor, const int offset,
                         GLOBAL const int* restrict in, GLOBAL int* restrict out) {
  const int i = (int)get_global_id(0);
  if (i < n) {
    out[i] = in[i] * factor + offset;
  }
}

// dst[target] = the sum of src[first, first + count). One work-item reads
// everything before it writes, so dst may be src and target inside the range.
KERNEL void sum_range(const int first, const int count, const int target, GLOBAL const uint* src,
                      GLOBAL uint* dst) {
  if (get_global_id(0) == 0) {
    uint sum = 0;
    for (int i = 0; i < count; ++i) sum += src[first + i];
    dst[target] = sum;
  }
}
