// alloy kernel prelude: lets one kernel source compile as OpenCL C 1.2, CUDA (NVRTC) and HIP (hiprtc).
//
// The runtime puts this text before every kernel source, followed by a
// `#line 1 "name"` directive. It must not #include anything: NVRTC and hiprtc
// have no system headers. Helper names start with alloy_ and parameter names
// are lower case, so upper-case user tunables (-DWGS=128) cannot reach them.
// See docs/kernels.md for the dialect.

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

// The atomic_* built-ins take volatile pointers; these wrappers keep call
// sites identical to CUDA/HIP, where plain pointers are the norm.
static inline int atomic_add_int(__global int* ptr, int value) {
  return atomic_add((volatile __global int*)ptr, value);
}

// OpenCL 1.2 has no float atomics: retry a compare-exchange on the bits.
// Comparing bits, not floats, also terminates when the stored value is NaN.
static inline float atomic_add_float(__global float* ptr, float value) {
  volatile __global int* bits = (volatile __global int*)ptr;
  int old = *bits;
  int expected;
  do {
    expected = old;
    old = atomic_cmpxchg(bits, expected, as_int(as_float(expected) + value));
  } while (old != expected);
  return as_float(old);
}

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
__device__ inline size_t get_group_id(uint dim) {
  return dim == 0 ? blockIdx.x : dim == 1 ? blockIdx.y : dim == 2 ? blockIdx.z : 0;
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

__device__ inline int atomic_add_int(int* ptr, int value) { return atomicAdd(ptr, value); }
__device__ inline float atomic_add_float(float* ptr, float value) {
  return atomicAdd(ptr, value);
}

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
