// alloy.gemm: C = op(A) x op(B) for row-major matrices (op(A) M×K, op(B)
// K×N, C M×N), with CLBlast-style tunables, in the portable alloy dialect.
// TRANSA (TRANSB) 1: A is stored K×M (B N×K) and used transposed. REAL is
// float or double. These three are fixed per kernel variant, not tuned.
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
// Any M, N and K: the host rounds the launch up to whole tiles. A work-group
// whose tile lies inside C runs without bounds checks, as does every full
// KWG step; only tiles on the edges of C, and the last step when KWG does not
// divide K, check each element (the choice is uniform per work-group, so it
// costs no divergence). Elements outside A and B count as zero.

#ifndef TRANSA
#define TRANSA 0
#endif
#ifndef TRANSB
#define TRANSB 0
#endif
#ifndef REAL
#define REAL float
#endif

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

// A run of VWN elements. OpenCL C has vector types, which a CPU compiler maps
// straight to SIMD registers; CUDA and HIP get a struct, since a GPU thread
// is scalar anyway and the loop over its elements unrolls.
#define GEMM_CAT2(a, b) a##b
#define GEMM_CAT(a, b) GEMM_CAT2(a, b)
#if defined(ALLOY_BACKEND_OPENCL) && VWN > 1
typedef GEMM_CAT(REAL, VWN) gemm_run;
#define gemm_load(p) GEMM_CAT(vload, VWN)(0, p)
#define gemm_store(value, p) GEMM_CAT(vstore, VWN)(value, 0, p)
#define gemm_zero() ((gemm_run)((REAL)0))
#define gemm_madd(scalar, run, sum) ((scalar) * (run) + (sum))
// A run to and from its elements, for the checked path: through a private
// array, one vector load or store for all VWN elements.
#define gemm_private_load(elements) GEMM_CAT(vload, VWN)(0, elements)
#define gemm_private_store(run, elements) GEMM_CAT(vstore, VWN)(run, 0, elements)
#elif defined(ALLOY_BACKEND_OPENCL)
typedef REAL gemm_run;
#define gemm_load(p) (*(p))
#define gemm_store(value, p) (*(p) = (value))
#define gemm_zero() ((REAL)0)
#define gemm_madd(scalar, run, sum) ((scalar) * (run) + (sum))
#define gemm_private_load(elements) ((elements)[0])
#define gemm_private_store(run, elements) ((elements)[0] = (run))
#else
typedef struct { REAL e[VWN]; } gemm_run;
INLINE gemm_run gemm_load(const REAL* p) {
  gemm_run run;
#pragma unroll
  for (int e = 0; e < VWN; ++e) run.e[e] = p[e];
  return run;
}
INLINE void gemm_store(gemm_run run, REAL* p) {
#pragma unroll
  for (int e = 0; e < VWN; ++e) p[e] = run.e[e];
}
INLINE gemm_run gemm_zero() {
  gemm_run run;
#pragma unroll
  for (int e = 0; e < VWN; ++e) run.e[e] = (REAL)0;
  return run;
}
INLINE gemm_run gemm_madd(REAL scalar, gemm_run run, gemm_run sum) {
#pragma unroll
  for (int e = 0; e < VWN; ++e) sum.e[e] += scalar * run.e[e];
  return sum;
}
#define gemm_private_load(elements) gemm_load(elements)
#define gemm_private_store(run, elements) gemm_store(run, elements)
#endif

// Element (m, k) of op(A) and (k, n) of op(B), as stored: in the layout
// the configuration chose for each (LAYOUT_AB: row-major, or rows padded to
// an odd multiple of 16 elements, which keeps rows whose length is a power
// of two from falling into the same cache sets).
#if TRANSA
#define GEMM_A(m, k) AT2(a, k, m)
#else
#define GEMM_A(m, k) AT2(a, m, k)
#endif
#if TRANSB
#define GEMM_B(k, n) AT2(b, n, k)
#else
#define GEMM_B(k, n) AT2(b, k, n)
#endif
// With `check`, zero outside the matrices.
#define GEMM_A_AT(m, k, check) ((!(check) || ((m) < M && (k) < K)) ? GEMM_A(m, k) : (REAL)0)
#define GEMM_B_AT(k, n, check) ((!(check) || ((k) < K && (n) < N)) ? GEMM_B(k, n) : (REAL)0)

// A run of op(B) at row k from column n: one vector load where the run is
// contiguous (B not transposed) and inside B, zero where it lies wholly
// outside, element by element only where it straddles B's last column. On
// an edge tile most runs are one of the first two.
INLINE gemm_run gemm_b_run(GLOBAL const REAL* restrict b, const int N, const int K, int k, int n, int check) {
#if !TRANSB
  if (!check || (k < K && n + VWN <= N)) return gemm_load(&GEMM_B(k, n));
#endif
  if (check && (k >= K || n >= N)) return gemm_zero();
  REAL elements[VWN];
  for (int e = 0; e < VWN; ++e) elements[e] = GEMM_B_AT(k, n + e, check);
  return gemm_private_load(elements);
}

// The tiles of one KWG-deep step at k0 into local memory (SA, SB).
// Consecutive work-items read consecutive k of one row of A.
#if SA
#define GEMM_LOAD_A_TILE(k0, check)                                                      \
  for (int l = 0; l < MWG * KWG / GEMM_GROUP; ++l) {                                     \
    const int i = l * GEMM_GROUP + tid;                                                  \
    a_tile[(i % KWG) * MWG + i / KWG] = GEMM_A_AT(m0 + i / KWG, (k0) + i % KWG, check);  \
  }
#else
#define GEMM_LOAD_A_TILE(k0, check)
#endif
#if SB
#define GEMM_LOAD_B_TILE(k0, check)                                                      \
  for (int l = 0; l < KWG * NWG / GEMM_GROUP; ++l) {                                     \
    const int i = l * GEMM_GROUP + tid;                                                  \
    b_tile[i] = GEMM_B_AT((k0) + i / NWG, n0 + i % NWG, check);                          \
  }
#else
#define GEMM_LOAD_B_TILE(k0, check)
#endif
#if SA || SB
#define GEMM_TILE_BARRIER() local_barrier()
#else
#define GEMM_TILE_BARRIER()
#endif
#if SB
#define GEMM_B_RUN(k0, k, r, check) gemm_load(&b_tile[(k) * NWG + GEMM_RUN(tid_n, r)])
#else
#define GEMM_B_RUN(k0, k, r, check) gemm_b_run(b, N, K, (k0) + (k), n0 + GEMM_RUN(tid_n, r), check)
#endif
#if SA
#define GEMM_A_VALUE(k0, k, mi, check) a_tile[(k) * MWG + GEMM_ROW(tid_m, mi)]
#else
#define GEMM_A_VALUE(k0, k, mi, check) GEMM_A_AT(m0 + GEMM_ROW(tid_m, mi), (k0) + (k), check)
#endif

// One KWG-deep step at k0: the tiles, then the products into acc. `check`
// is a literal where the macro is used, so each use compiles to a loop with
// or without bounds checks. Checked, a work-item whose elements all lie
// outside C computes nothing (it still helps load the tiles), and the step
// ends at K: an edge tile or a last step that is mostly outside costs little.
// The barrier after: the next step overwrites the tiles others may still be
// reading.
#define GEMM_STEP(k0, check)                                                                              \
  {                                                                                                       \
    GEMM_LOAD_A_TILE(k0, check)                                                                           \
    GEMM_LOAD_B_TILE(k0, check)                                                                           \
    GEMM_TILE_BARRIER();                                                                                  \
    if (!(check) || has_work) {                                                                           \
      _Pragma("unroll") for (int k = 0; k < KWG; ++k) {                                                   \
        if (!(check) || (k0) + k < K) {                                                                   \
          gemm_run b_runs[GEMM_RUNS];                                                                     \
          _Pragma("unroll") for (int r = 0; r < GEMM_RUNS; ++r) b_runs[r] = GEMM_B_RUN(k0, k, r, check);  \
          _Pragma("unroll") for (int mi = 0; mi < GEMM_MWI; ++mi) {                                       \
            const REAL a_value = GEMM_A_VALUE(k0, k, mi, check);                                          \
            _Pragma("unroll") for (int r = 0; r < GEMM_RUNS; ++r) acc[mi][r] =                            \
                gemm_madd(a_value, b_runs[r], acc[mi][r]);                                                \
          }                                                                                               \
        }                                                                                                 \
      }                                                                                                   \
    }                                                                                                     \
    GEMM_TILE_BARRIER();                                                                                  \
  }

KERNEL void gemm(const int M, const int N, const int K, GLOBAL const REAL* restrict a,
                 GLOBAL const REAL* restrict b, GLOBAL REAL* restrict c) {
  const int tid_n = (int)get_local_id(0);
  const int tid_m = (int)get_local_id(1);
  const int n0 = (int)get_group_id(0) * NWG;
  const int m0 = (int)get_group_id(1) * MWG;
#if SA
  // k-major, so the MWG rows of one k are contiguous, as in the B tile.
  LOCAL REAL a_tile[KWG * MWG];
#endif
#if SB
  LOCAL REAL b_tile[KWG * NWG];
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

  // The same for every work-item of the group: no divergence inside it.
  // Two copies of the step, not one per case: each costs compile time.
  const int inside = m0 + MWG <= M && n0 + NWG <= N;
  // A work-item's first row and column are its smallest.
  const int has_work = m0 + GEMM_ROW(tid_m, 0) < M && n0 + GEMM_RUN(tid_n, 0) < N;
  for (int k0 = 0; k0 < K; k0 += KWG) {
    if (inside && k0 + KWG <= K) {
      GEMM_STEP(k0, 0)
    } else {
      GEMM_STEP(k0, 1)
    }
  }

#pragma unroll
  for (int mi = 0; mi < GEMM_MWI; ++mi) {
    const int m = m0 + GEMM_ROW(tid_m, mi);
#pragma unroll
    for (int r = 0; r < GEMM_RUNS; ++r) {
      const int n = n0 + GEMM_RUN(tid_n, r);
      if (inside || (m < M && n + VWN <= N)) {
        gemm_store(acc[mi][r], &c[(size_t)m * N + n]);
      } else if (m < M && n < N) {
        REAL elements[VWN];
        gemm_private_store(acc[mi][r], elements);
        for (int e = 0; e < VWN; ++e) {
          if (n + e < N) c[(size_t)m * N + n + e] = elements[e];
        }
      }
    }
  }
}
