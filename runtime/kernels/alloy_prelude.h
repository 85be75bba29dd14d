// alloy kernel prelude: lets one kernel source compile as OpenCL C 1.2, CUDA (NVRTC) and HIP (hiprtc).
//
// The runtime puts this text before every kernel source, followed by a
// `#line 1 "name"` directive. It must not #include anything: NVRTC and hiprtc
// have no system headers. Helper names start with alloy_ and parameter names
// are lower case, so upper-case user tunables (-DWGS=128) cannot reach them.
// See docs/kernels.md for the dialect.

// On a line of its own, says that the source's kernels run whole, never in
// slices (docs/kernels.md, "Slices").
#define ALLOY_NO_SLICES

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
// ---- OpenCL C 1.2: the dialect uses OpenCL's names, so most of it is built in.
#define ALLOY_BACKEND_OPENCL 1

// OpenCL 1.1 compilers need the pragma before any use of double; harmless on 1.2.
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define KERNEL __kernel
#define GLOBAL __global
#define CONSTANT __constant
#define LOCAL __local
// `restrict` is a C99 keyword in OpenCL C already.

// static: every program (and every file linked into one) gets its own copy,
// so helpers never clash at link time nor depend on C99 extern-inline rules.
#define INLINE static inline

#define local_barrier() barrier(CLK_LOCAL_MEM_FENCE)
#define global_barrier() barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)

// Slices (docs/kernels.md): a slice of a launch runs with a global offset,
// which get_global_id adds already; group ids count from the whole range's
// first group too. (The macro's own name inside it is the built-in.)
#define get_group_id(dim) (get_group_id(dim) + get_global_offset(dim) / get_local_size(dim))
#if ALLOY_TAKES_FIRST_GROUP && defined(ALLOY_FIRST_GROUP_AS_ARGUMENTS)
// The emulated device launches as CUDA does, with the first group as
// arguments, and runs the slice with the global offset they give.
#define ALLOY_FIRST_GROUP_PARAMETERS_ONLY \
  const uint alloy_first_group_x, const uint alloy_first_group_y, const uint alloy_first_group_z
#define ALLOY_FIRST_GROUP_PARAMETERS , ALLOY_FIRST_GROUP_PARAMETERS_ONLY
#else
#define ALLOY_FIRST_GROUP_PARAMETERS_ONLY void
#define ALLOY_FIRST_GROUP_PARAMETERS
#endif
#define ALLOY_ENTER_KERNEL

// 64-bit atomics are optional in OpenCL 1.2; ALLOY_ATOMICS_64 says whether
// the atomic_*_long and atomic_*_ulong names below can be used.
#if defined(cl_khr_int64_base_atomics) && defined(cl_khr_int64_extended_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define ALLOY_ATOMICS_64 1
#endif

// Integer atomics on GLOBAL or LOCAL memory, each returning the old value.
// OpenCL's built-ins are overloaded by address space and type, so macros keep
// one name for both spaces (functions would need one per space). The value is
// converted to the named type, as a call of the CUDA/HIP function converts it.
#define atomic_add_int(p, v) atomic_add((p), (int)(v))
#define atomic_add_uint(p, v) atomic_add((p), (uint)(v))
#define atomic_min_int(p, v) atomic_min((p), (int)(v))
#define atomic_min_uint(p, v) atomic_min((p), (uint)(v))
#define atomic_max_int(p, v) atomic_max((p), (int)(v))
#define atomic_max_uint(p, v) atomic_max((p), (uint)(v))
#define atomic_inc_int(p) atomic_inc(p)
#define atomic_inc_uint(p) atomic_inc(p)
#define atomic_cmpxchg_int(p, expected, desired) atomic_cmpxchg((p), (int)(expected), (int)(desired))
#define atomic_cmpxchg_uint(p, expected, desired) \
  atomic_cmpxchg((p), (uint)(expected), (uint)(desired))
#define atomic_add_long(p, v) atom_add((p), (long)(v))
#define atomic_add_ulong(p, v) atom_add((p), (ulong)(v))
#define atomic_min_long(p, v) atom_min((p), (long)(v))
#define atomic_min_ulong(p, v) atom_min((p), (ulong)(v))
#define atomic_max_long(p, v) atom_max((p), (long)(v))
#define atomic_max_ulong(p, v) atom_max((p), (ulong)(v))
#define atomic_cmpxchg_long(p, expected, desired) atom_cmpxchg((p), (long)(expected), (long)(desired))
#define atomic_cmpxchg_ulong(p, expected, desired) \
  atom_cmpxchg((p), (ulong)(expected), (ulong)(desired))

// OpenCL 1.2 has no float atomics: retry a compare-exchange on the bits.
// Comparing bits, not floats, also terminates when the stored value is NaN.
// C has no overloading, so local memory has its own name.
#define ALLOY_ATOMIC_ADD_FLOAT(space)                                        \
  volatile space int* bits = (volatile space int*)ptr;                       \
  int old = *bits;                                                           \
  int expected;                                                              \
  do {                                                                       \
    expected = old;                                                          \
    old = atomic_cmpxchg(bits, expected, as_int(as_float(expected) + value)); \
  } while (old != expected);                                                 \
  return as_float(old);
static inline float atomic_add_float(__global float* ptr, float value) { ALLOY_ATOMIC_ADD_FLOAT(__global) }
static inline float atomic_add_float_local(__local float* ptr, float value) {
  ALLOY_ATOMIC_ADD_FLOAT(__local)
}

// Vectors: floatN, intN... with .x .y .z .w, arithmetic, vloadN/vstoreN and
// dot are built in; make_<type>N is CUDA's and HIP's constructor spelling.
#define make_float2(x, y) ((float2)((x), (y)))
#define make_float4(x, y, z, w) ((float4)((x), (y), (z), (w)))
#define make_int2(x, y) ((int2)((x), (y)))
#define make_int4(x, y, z, w) ((int4)((x), (y), (z), (w)))
#define make_uint2(x, y) ((uint2)((x), (y)))
#define make_uint4(x, y, z, w) ((uint4)((x), (y), (z), (w)))
#define make_double2(x, y) ((double2)((x), (y)))

#elif defined(__HIPCC_RTC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__) || defined(__CUDACC__)
// ---- CUDA (NVRTC) and HIP (hiprtc): both C++ with the CUDA execution model.
// HIP is tested first: HIP on NVIDIA defines the CUDA macros as well.
#if defined(__HIPCC_RTC__) || defined(__HIPCC__)
#define ALLOY_BACKEND_HIP 1
#else
#define ALLOY_BACKEND_CUDA 1
#endif

// extern "C": the runtime looks kernels up by their plain (unmangled) name.
#define KERNEL extern "C" __global__
// One address space for device memory; __constant__ would need a
// file-scope symbol, so read-only parameters are just const pointers.
#define GLOBAL
#define CONSTANT const
#define LOCAL __shared__
#define restrict __restrict__
#define INLINE __device__ inline

// OpenCL's scalar names. hiprtc already declares uint/ulong; repeating a
// typedef of the same type is valid C++. long is 64-bit on Linux (LP64).
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

// OpenCL work-item functions. The runtime launches OpenCL-style, with
// grid = global / local, so global size = gridDim * blockDim. Out-of-range
// dimensions return what OpenCL returns (0 for ids, 1 for sizes).
// size_t arithmetic: blockIdx * blockDim can exceed 32 bits.
__device__ inline size_t get_local_id(uint dim) {
  return dim == 0 ? threadIdx.x : dim == 1 ? threadIdx.y : dim == 2 ? threadIdx.z : 0;
}
#if ALLOY_TAKES_FIRST_GROUP
// Slices (docs/kernels.md): the runtime passes a slice's first group after
// the declared arguments; the kernel's entry keeps it where get_group_id,
// called from any function, reads it. One thread writes, then all wait.
__shared__ unsigned int alloy_first_group[3];
#define ALLOY_FIRST_GROUP_PARAMETERS_ONLY \
  const unsigned int alloy_first_group_x, const unsigned int alloy_first_group_y, \
      const unsigned int alloy_first_group_z
#define ALLOY_FIRST_GROUP_PARAMETERS , ALLOY_FIRST_GROUP_PARAMETERS_ONLY
#define ALLOY_ENTER_KERNEL alloy_enter_kernel(alloy_first_group_x, alloy_first_group_y, alloy_first_group_z);
__device__ inline void alloy_enter_kernel(unsigned int x, unsigned int y, unsigned int z) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    alloy_first_group[0] = x;
    alloy_first_group[1] = y;
    alloy_first_group[2] = z;
  }
  __syncthreads();
}
__device__ inline size_t alloy_first_group_of(uint dim) { return dim < 3 ? alloy_first_group[dim] : 0; }
#else
#define ALLOY_FIRST_GROUP_PARAMETERS_ONLY void
#define ALLOY_FIRST_GROUP_PARAMETERS
#define ALLOY_ENTER_KERNEL
__device__ inline size_t alloy_first_group_of(uint) { return 0; }
#endif
__device__ inline size_t get_group_id(uint dim) {
  return (dim == 0 ? blockIdx.x : dim == 1 ? blockIdx.y : dim == 2 ? blockIdx.z : 0) + alloy_first_group_of(dim);
}
__device__ inline size_t get_local_size(uint dim) {
  return dim == 0 ? blockDim.x : dim == 1 ? blockDim.y : dim == 2 ? blockDim.z : 1;
}
__device__ inline size_t get_num_groups(uint dim) {
  return dim == 0 ? gridDim.x : dim == 1 ? gridDim.y : dim == 2 ? gridDim.z : 1;
}
__device__ inline size_t get_global_size(uint dim) {
  return get_num_groups(dim) * get_local_size(dim);
}
__device__ inline size_t get_global_id(uint dim) {
  return get_group_id(dim) * get_local_size(dim) + get_local_id(dim);
}

// __syncthreads() already makes shared and global writes of the block
// visible to the block; the fence only spells out the global ordering.
__device__ inline void local_barrier() { __syncthreads(); }
__device__ inline void global_barrier() {
  __threadfence_block();
  __syncthreads();
}

#define ALLOY_ATOMICS_64 1

// Atomics: one function per operation and type. CUDA's and HIP's atomics take
// generic pointers, so each works on global and shared (LOCAL) memory alike.
// The 64-bit types go through (unsigned) long long, which CUDA's functions
// are declared for; long and long long are both 64 bits on Linux.
typedef unsigned long long alloy_ull;
typedef long long alloy_ll;
#define ALLOY_ATOMIC(op, type, native_type, native)                              \
  __device__ inline type atomic_##op##_##type(type* ptr, type value) {           \
    return (type)native((native_type*)ptr, (native_type)value);                 \
  }
ALLOY_ATOMIC(add, int, int, atomicAdd)
ALLOY_ATOMIC(add, uint, uint, atomicAdd)
ALLOY_ATOMIC(add, long, alloy_ull, atomicAdd)  // two's complement: unsigned add is signed add
ALLOY_ATOMIC(add, ulong, alloy_ull, atomicAdd)
ALLOY_ATOMIC(min, int, int, atomicMin)
ALLOY_ATOMIC(min, uint, uint, atomicMin)
ALLOY_ATOMIC(min, ulong, alloy_ull, atomicMin)
ALLOY_ATOMIC(max, int, int, atomicMax)
ALLOY_ATOMIC(max, uint, uint, atomicMax)
ALLOY_ATOMIC(max, ulong, alloy_ull, atomicMax)
ALLOY_ATOMIC(add, float, float, atomicAdd)
#undef ALLOY_ATOMIC
__device__ inline float atomic_add_float_local(float* ptr, float value) { return atomicAdd(ptr, value); }
__device__ inline int atomic_inc_int(int* ptr) { return atomicAdd(ptr, 1); }
__device__ inline uint atomic_inc_uint(uint* ptr) { return atomicAdd(ptr, 1u); }

#define ALLOY_ATOMIC_CMPXCHG(type, native_type)                                          \
  __device__ inline type atomic_cmpxchg_##type(type* ptr, type expected, type desired) { \
    return (type)atomicCAS((native_type*)ptr, (native_type)expected, (native_type)desired); \
  }
ALLOY_ATOMIC_CMPXCHG(int, int)
ALLOY_ATOMIC_CMPXCHG(uint, uint)
ALLOY_ATOMIC_CMPXCHG(long, alloy_ull)
ALLOY_ATOMIC_CMPXCHG(ulong, alloy_ull)
#undef ALLOY_ATOMIC_CMPXCHG

// Signed 64-bit min and max: a compare-exchange loop, since not every CUDA
// and HIP version declares atomicMin/atomicMax for long long.
#define ALLOY_ATOMIC_LONG_EXTREMUM(op, better)                               \
  __device__ inline long atomic_##op##_long(long* ptr, long value) {         \
    alloy_ull* bits = (alloy_ull*)ptr;                                       \
    alloy_ull old = *bits;                                                   \
    while (better(value, (long)old)) {                                       \
      const alloy_ull seen = atomicCAS(bits, old, (alloy_ull)value);         \
      if (seen == old) break;                                                \
      old = seen;                                                            \
    }                                                                        \
    return (long)old;                                                        \
  }
#define ALLOY_LESS(a, b) ((a) < (b))
#define ALLOY_GREATER(a, b) ((a) > (b))
ALLOY_ATOMIC_LONG_EXTREMUM(min, ALLOY_LESS)
ALLOY_ATOMIC_LONG_EXTREMUM(max, ALLOY_GREATER)
#undef ALLOY_ATOMIC_LONG_EXTREMUM
#undef ALLOY_LESS
#undef ALLOY_GREATER

// Vectors: CUDA's and HIP's float2, float4, int2... with make_<type>N. Loads
// and stores of N elements at p + N * offset, as OpenCL's vloadN/vstoreN,
// compile to one vector access here, so that address must be aligned to the
// vector's size (OpenCL only asks for the element's alignment).
#define ALLOY_VECTOR_ACCESS(type, n)                                                  \
  __device__ inline type##n vload##n(size_t offset, const type* p) {                 \
    return *(const type##n*)(p + n * offset);                                         \
  }                                                                                   \
  __device__ inline void vstore##n(type##n value, size_t offset, type* p) {          \
    *(type##n*)(p + n * offset) = value;                                              \
  }
ALLOY_VECTOR_ACCESS(float, 2)
ALLOY_VECTOR_ACCESS(float, 4)
ALLOY_VECTOR_ACCESS(int, 2)
ALLOY_VECTOR_ACCESS(int, 4)
ALLOY_VECTOR_ACCESS(uint, 2)
ALLOY_VECTOR_ACCESS(uint, 4)
ALLOY_VECTOR_ACCESS(double, 2)
#undef ALLOY_VECTOR_ACCESS

__device__ inline float dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }
__device__ inline float dot(float4 a, float4 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

#if defined(ALLOY_BACKEND_CUDA)
// HIP's vector types come with arithmetic; CUDA's do not: add OpenCL's
// element-wise operators for the float vectors, with scalars on either side.
#define ALLOY_VECTOR_OPERATOR(op)                                                     \
  __device__ inline float2 operator op(float2 a, float2 b) {                         \
    return make_float2(a.x op b.x, a.y op b.y);                                       \
  }                                                                                   \
  __device__ inline float4 operator op(float4 a, float4 b) {                         \
    return make_float4(a.x op b.x, a.y op b.y, a.z op b.z, a.w op b.w);               \
  }                                                                                   \
  __device__ inline float2 operator op(float2 a, float s) { return a op make_float2(s, s); } \
  __device__ inline float2 operator op(float s, float2 a) { return make_float2(s, s) op a; } \
  __device__ inline float4 operator op(float4 a, float s) {                          \
    return a op make_float4(s, s, s, s);                                              \
  }                                                                                   \
  __device__ inline float4 operator op(float s, float4 a) {                          \
    return make_float4(s, s, s, s) op a;                                              \
  }
ALLOY_VECTOR_OPERATOR(+)
ALLOY_VECTOR_OPERATOR(-)
ALLOY_VECTOR_OPERATOR(*)
ALLOY_VECTOR_OPERATOR(/)
#undef ALLOY_VECTOR_OPERATOR
__device__ inline float2& operator+=(float2& a, float2 b) { return a = a + b; }
__device__ inline float4& operator+=(float4& a, float4 b) { return a = a + b; }
#endif

// Math. NVRTC and hiprtc already provide float overloads of sqrt, exp, log,
// fabs, floor, ceil, pow, sin, cos, fmin, fmax, fma, min and max (and int
// min/max). Only what is missing is added here.

// rsqrt(float): NVRTC has it, HIP 5.x only has rsqrt(double). A template
// restricted to float cannot clash with either: a non-template rsqrt(float)
// wins a tie, and the template beats rsqrt(double)'s promotion otherwise.
template <class alloy_type> struct alloy_only_float {};
template <> struct alloy_only_float<float> { typedef float type; };
template <class alloy_type>
__device__ inline typename alloy_only_float<alloy_type>::type rsqrt(alloy_type x) {
  return rsqrtf(x);
}

// mad: OpenCL allows a fused or unfused multiply-add; fma is always valid.
__device__ inline float mad(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double mad(double a, double b, double c) { return fma(a, b, c); }

// clamp = min(max(x, lo), hi), as OpenCL defines it for each type.
__device__ inline float clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
__device__ inline double clamp(double x, double lo, double hi) { return fmin(fmax(x, lo), hi); }
__device__ inline int clamp(int x, int lo, int hi) { return min(max(x, lo), hi); }
__device__ inline uint clamp(uint x, uint lo, uint hi) { return min(max(x, lo), hi); }
__device__ inline long clamp(long x, long lo, long hi) { return min(max(x, lo), hi); }
__device__ inline ulong clamp(ulong x, ulong lo, ulong hi) { return min(max(x, lo), hi); }

#else
#error "alloy prelude: unknown kernel compiler; expected OpenCL C, NVRTC or hiprtc"
#endif

// ---- Layouts, for every backend: FIELD(p, i, x) is field x of record i of
// the record array p, AT2(p, r, c) element (r, c) of the matrix p, in the
// layout the runtime's ALLOY_<p>_* defines describe (alloy/layout.hpp). The
// defines are constants, so the compiler folds the switch away. The
// arithmetic is size_t: offsets of large arrays pass 32 bits.

// kind 0 aos, 1 soa, 2 aosoa; offset: aos, the field's place in a record;
// soa and aosoa, the bytes of the field arrays before its own per record.
INLINE size_t alloy_field_offset(int kind, size_t width, size_t block, size_t record, size_t count,
                                 size_t offset, size_t size, size_t i) {
  if (kind == 0) return i * record + offset;
  if (kind == 1) return offset * count + i * size;
  return i / width * block + offset * width + i % width * size;
}
#define FIELD(p, i, f)                                                                             \
  (*(GLOBAL ALLOY_##p##_##f##_TYPE*)((GLOBAL uchar*)(p) +                                          \
                                     alloy_field_offset(ALLOY_##p##_KIND, ALLOY_##p##_WIDTH,      \
                                                        ALLOY_##p##_BLOCK, ALLOY_##p##_RECORD,    \
                                                        (size_t)(ALLOY_##p##_COUNT),              \
                                                        ALLOY_##p##_##f##_OFFSET,                 \
                                                        ALLOY_##p##_##f##_SIZE, (size_t)(i))))

// order 0 row-major, 1 column-major (pitch: the length rounded up to pad,
// with odd 1 to an odd number of pads), 2 square tiles of tile x tile.
INLINE size_t alloy_at2_pitch(size_t length, size_t pad, size_t odd) {
  return ((length + pad - 1) / pad | odd) * pad;
}
INLINE size_t alloy_at2_index(int order, size_t pad, size_t odd, size_t tile, size_t rows, size_t columns, size_t r,
                              size_t c) {
  if (order == 0) return r * alloy_at2_pitch(columns, pad, odd) + c;
  if (order == 1) return c * alloy_at2_pitch(rows, pad, odd) + r;
  return (r / tile * ((columns + tile - 1) / tile) + c / tile) * tile * tile + r % tile * tile + c % tile;
}
#define AT2(p, r, c)                                                                               \
  (p)[alloy_at2_index(ALLOY_##p##_ORDER, ALLOY_##p##_PAD, ALLOY_##p##_ODD, ALLOY_##p##_TILE,       \
                      (size_t)(ALLOY_##p##_ROWS), (size_t)(ALLOY_##p##_COLUMNS), (size_t)(r), (size_t)(c))]
