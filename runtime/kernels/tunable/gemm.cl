// alloy.gemm: C = A x B for row-major float matrices (A M×K, B K×N, C M×N), with CLBlast-style tunables, in the portable alloy dialect.
//
// A work-group computes one MWG × NWG tile of C with MDIMC × NDIMC work-items;
// each work-item keeps its MWI × NWI (MWG/MDIMC × NWG/NDIMC) elements of that
// tile in registers and walks K in steps of KWG. Launch dimension 0 runs along
// n (columns of B and C) and dimension 1 along m, so neighbouring work-items
// read neighbouring elements of B and write neighbouring elements of C.
//
// A work-item's columns come in runs of VWN consecutive ones, runs NDIMC * VWN
// apart; its rows likewise in runs of VWM. VWN = 1 interleaves work-items
// column by column (coalesced on GPUs); a large VWN gives each work-item whole
// SIMD vectors of B and C, which is what a CPU wants. A's elements are used
// one at a time (broadcast against a run of B), so VWM only shapes the layout.
//
// The host guarantees M % MWG == 0, N % NWG == 0 and K % KWG == 0, so there
// are no bounds checks, and every loop but the one over K has a compile-time
// trip count.

// Work-group tile of C: MWG rows (m) by NWG columns (n).
#ifndef MWG
#define MWG 16
#endif
#ifndef NWG
#define NWG 16
#endif
// Step along K: the depth of the A and B tiles.
#ifndef KWG
#define KWG 8
#endif
// Work-group shape: MDIMC work-items along m (dimension 1), NDIMC along n (dimension 0).
#ifndef MDIMC
#define MDIMC 8
#endif
#ifndef NDIMC
#define NDIMC 8
#endif
// Consecutive rows (VWM) and columns (VWN) a work-item owns before its next run.
#ifndef VWM
#define VWM 1
#endif
#ifndef VWN
#define VWN 1
#endif
// 1: the work-group first copies the KWG-deep A (SA) or B (SB) tile into
// local memory, where each element is then read by several work-items.
#ifndef SA
#define SA 0
#endif
#ifndef SB
#define SB 0
#endif

#define GEMM_MWI (MWG / MDIMC)
#define GEMM_NWI (NWG / NDIMC)
#define GEMM_RUNS (GEMM_NWI / VWN)  // runs of VWN columns per work-item
#define GEMM_GROUP (MDIMC * NDIMC)

// Row within the work-group tile of a work-item's mi-th row; first column of its r-th run.
#define GEMM_ROW(tid_m, mi) (((mi) / VWM) * (MDIMC * VWM) + (tid_m) * VWM + (mi) % VWM)
#define GEMM_RUN(tid_n, r) ((r) * (NDIMC * VWN) + (tid_n) * VWN)

// A run of VWN floats. OpenCL C has vector types, which a CPU compiler maps
// straight to SIMD registers; CUDA and HIP get a struct, since a GPU thread
// is scalar anyway and the loop over its elements unrolls.
#define GEMM_CAT2(a, b) a##b
#define GEMM_CAT(a, b) GEMM_CAT2(a, b)
#if defined(ALLOY_BACKEND_OPENCL) && VWN > 1
typedef GEMM_CAT(float, VWN) gemm_run;
#define gemm_load(p) GEMM_CAT(vload, VWN)(0, p)
#define gemm_store(value, p) GEMM_CAT(vstore, VWN)(value, 0, p)
#define gemm_zero() ((gemm_run)(0.0f))
#define gemm_madd(scalar, run, sum) ((scalar) * (run) + (sum))
#elif defined(ALLOY_BACKEND_OPENCL)
typedef float gemm_run;
#define gemm_load(p) (*(p))
#define gemm_store(value, p) (*(p) = (value))
#define gemm_zero() 0.0f
#define gemm_madd(scalar, run, sum) ((scalar) * (run) + (sum))
#else
typedef struct { float e[VWN]; } gemm_run;
INLINE gemm_run gemm_load(const float* p) {
  gemm_run run;
#pragma unroll
  for (int e = 0; e < VWN; ++e) run.e[e] = p[e];
  return run;
}
INLINE void gemm_store(gemm_run run, float* p) {
#pragma unroll
  for (int e = 0; e < VWN; ++e) p[e] = run.e[e];
}
INLINE gemm_run gemm_zero() {
  gemm_run run;
#pragma unroll
  for (int e = 0; e < VWN; ++e) run.e[e] = 0.0f;
  return run;
}
INLINE gemm_run gemm_madd(float scalar, gemm_run run, gemm_run sum) {
#pragma unroll
  for (int e = 0; e < VWN; ++e) sum.e[e] += scalar * run.e[e];
  return sum;
}
#endif

KERNEL void gemm(const int M, const int N, const int K, GLOBAL const float* restrict a,
                 GLOBAL const float* restrict b, GLOBAL float* restrict c) {
  const int tid_n = (int)get_local_id(0);
  const int tid_m = (int)get_local_id(1);
  const int n0 = (int)get_group_id(0) * NWG;
  const int m0 = (int)get_group_id(1) * MWG;
#if SA
  // k-major, so the MWG rows of one k are contiguous, as in the B tile.
  LOCAL float a_tile[KWG * MWG];
#endif
#if SB
  LOCAL float b_tile[KWG * NWG];
#endif
#if SA || SB
  const int tid = tid_m * NDIMC + tid_n;
#endif

  gemm_run acc[GEMM_MWI][GEMM_RUNS];
#pragma unroll
  for (int mi = 0; mi < GEMM_MWI; ++mi) {
#pragma unroll
    for (int r = 0; r < GEMM_RUNS; ++r) acc[mi][r] = gemm_zero();
  }

  for (int k0 = 0; k0 < K; k0 += KWG) {
#if SA
    // Consecutive work-items read consecutive k of one row of A.
#pragma unroll
    for (int l = 0; l < MWG * KWG / GEMM_GROUP; ++l) {
      const int i = l * GEMM_GROUP + tid;
      a_tile[(i % KWG) * MWG + i / KWG] = a[(m0 + i / KWG) * K + k0 + i % KWG];
    }
#endif
#if SB
#pragma unroll
    for (int l = 0; l < KWG * NWG / GEMM_GROUP; ++l) {
      const int i = l * GEMM_GROUP + tid;
      b_tile[i] = b[(k0 + i / NWG) * N + n0 + i % NWG];
    }
#endif
#if SA || SB
    local_barrier();
#endif

#pragma unroll
    for (int k = 0; k < KWG; ++k) {
      gemm_run b_runs[GEMM_RUNS];
#pragma unroll
      for (int r = 0; r < GEMM_RUNS; ++r) {
#if SB
        b_runs[r] = gemm_load(&b_tile[k * NWG + GEMM_RUN(tid_n, r)]);
#else
        b_runs[r] = gemm_load(&b[(k0 + k) * N + n0 + GEMM_RUN(tid_n, r)]);
#endif
      }
#pragma unroll
      for (int mi = 0; mi < GEMM_MWI; ++mi) {
#if SA
        const float a_value = a_tile[k * MWG + GEMM_ROW(tid_m, mi)];
#else
        const float a_value = a[(m0 + GEMM_ROW(tid_m, mi)) * K + k0 + k];
#endif
#pragma unroll
        for (int r = 0; r < GEMM_RUNS; ++r) acc[mi][r] = gemm_madd(a_value, b_runs[r], acc[mi][r]);
      }
    }

#if SA || SB
    // The next iteration overwrites the tiles others may still be reading.
    local_barrier();
#endif
  }

#pragma unroll
  for (int mi = 0; mi < GEMM_MWI; ++mi) {
#pragma unroll
    for (int r = 0; r < GEMM_RUNS; ++r) {
      gemm_store(acc[mi][r], &c[(m0 + GEMM_ROW(tid_m, mi)) * N + n0 + GEMM_RUN(tid_n, r)]);
    }
  }
}
