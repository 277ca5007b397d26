/*@kevo
{
  "description": "register rows up to 16384 columns (warp or block per row); longer rows: few rows split over the whole GPU by a cooperative kernel holding each chunk on chip with one grid barrier, many rows held on chip by a cluster per row, the rest chunked and read twice",
  "knobs": {
    "WARPS": { "values": [1, 2, 4, 8, 16, 32], "value": 8, "about": "rows (one warp each) per block up to 1024 columns" },
    "BLOCK_N": { "values": [4, 8, 16], "value": 8, "about": "elements per thread of the block-per-row kernel, which serves rows up to 1024 * BLOCK_N" },
    "BLOCK_MIN": { "values": [32, 64, 128, 256, 512, 1024], "value": 256, "about": "fewest threads of a block-per-row launch" },
    "CL_THREADS": { "values": [256, 512, 1024], "value": 512, "about": "threads per block of a cluster-held long row" },
    "CL_NS": { "values": [0, 4, 8], "value": 8, "about": "float4 per thread a cluster block keeps in shared memory, beside the 8 in registers" },
    "COOP_THREADS": { "values": [256, 512, 1024], "value": 512, "about": "threads per block of the cooperative split-row kernel" },
    "COOP_BPS": { "values": [1, 2, 4], "value": 1, "about": "cooperative blocks per SM" },
    "COOP_NR": { "values": [4, 8, 16], "value": 16, "about": "float4 per thread the cooperative kernel holds in registers" },
    "COOP_NS": { "values": [0, 4, 8, 12, 16, 24], "value": 24, "about": "float4 per thread the cooperative kernel holds in shared memory" },
    "CHUNK": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096, "about": "elements per block of a row read twice (fallback)" }
  },
  "knob_rule": "COOP_THREADS * COOP_BPS <= 2048 && COOP_THREADS * COOP_BPS * (4 * COOP_NR + 32) <= 65536 && COOP_BPS * (COOP_THREADS * COOP_NS * 16 + 2048) <= 233472 && CL_THREADS * CL_NS * 16 <= 200000",
  "workspace": "max(rows * cdiv(cols, CHUNK), min(sms, 132) * COOP_BPS) * 8",
  "plans": [
    { "when": "cols <= 128",
      "launches": [ { "kernel": "softmax_warp4", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 256",
      "launches": [ { "kernel": "softmax_warp8", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_warp16", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 1024",
      "launches": [ { "kernel": "softmax_warp32", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 1024 * BLOCK_N",
      "launches": [ { "kernel": "softmax_block_n", "grid": "rows", "block": "min(1024, max(BLOCK_MIN, 32 * cdiv(cols, 32 * BLOCK_N)))", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 16384",
      "launches": [ { "kernel": "softmax_block16", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "rows <= min(sms, 132) * COOP_BPS && (cols <= max(1, min(sms, 132) * COOP_BPS / rows) * COOP_THREADS * 4 * (COOP_NR + COOP_NS) || cols > 8 * CL_THREADS * 4 * (8 + CL_NS))",
      "launches": [ { "kernel": "coop_rows", "grid": "rows * max(1, min(sms, 132) * COOP_BPS / rows)", "block": "COOP_THREADS",
                      "smem": "COOP_THREADS * COOP_NS * 16", "cooperative": true,
                      "args": ["x", "y", "ws", "cols", "max(1, min(sms, 132) * COOP_BPS / rows)"] } ] },
    { "when": "cols <= 8 * CL_THREADS * 4 * (8 + CL_NS)",
      "launches": [ { "kernel": "rows_long", "grid": "rows * cdiv(cols, CL_THREADS * 4 * (8 + CL_NS))", "block": "CL_THREADS",
                      "cluster": "cdiv(cols, CL_THREADS * 4 * (8 + CL_NS))", "smem": "CL_THREADS * CL_NS * 16",
                      "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "chunk_stats", "grid": "rows * cdiv(cols, CHUNK)", "block": 256, "args": ["x", "ws", "cols", "CHUNK"] },
                    { "kernel": "chunk_write", "grid": "rows * cdiv(cols, CHUNK)", "block": 256, "args": ["x", "y", "ws", "cols", "CHUNK"] } ] }
  ]
}
*/
#include "kevo.h"

// ---------------------------------------------------------------------------------------------------------------
// Rows up to 16384 columns: each element read once into registers, reduced, written once.
// ---------------------------------------------------------------------------------------------------------------
template <bool IsMax, bool PerWarp>
__device__ __forceinline__ float reduce(float v, float* sh) {
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    if (PerWarp) return v;
    const int lane = threadIdx.x & 31;
    if (lane == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : (IsMax ? -KEVO_INF : 0.0f);
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    __syncthreads();  // sh is reused by the next reduction
    return v;
}

template <int N, bool PerWarp>
__device__ __forceinline__ void softmax_regs(const KEVO_X* x, KEVO_Y* y, int rows, int cols) {
    __shared__ float sh[32];
    const long long row = PerWarp ? (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5) : blockIdx.x;
    if (PerWarp && row >= rows) return;  // a whole warp leaves together, so its shuffles stay full-mask
    const int first = PerWarp ? (threadIdx.x & 31) : threadIdx.x;
    const int step = PerWarp ? 32 : blockDim.x;
    const KEVO_X* xr = x + row * cols;
    KEVO_Y* yr = y + row * cols;

    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int c = first + j * step;
        v[j] = c < cols ? kevo_to_float(xr[c]) : -KEVO_INF;
    }
    float m = -KEVO_INF;
#pragma unroll
    for (int j = 0; j < N; ++j) m = fmaxf(m, v[j]);
    m = reduce<true, PerWarp>(m, sh);

    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < N; ++j) { v[j] = expf(v[j] - m); s += v[j]; }
    s = reduce<false, PerWarp>(s, sh);

    const float inv = 1.0f / s;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int c = first + j * step;
        if (c < cols) yr[c] = kevo_from_float<KEVO_Y>(v[j] * inv);
    }
}

extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp4(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<4, true>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp8(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<8, true>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp16(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<16, true>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp32(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<32, true>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(1024) softmax_block_n(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<BLOCK_N, false>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(1024) softmax_block16(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<16, false>(x, y, rows, cols); }

// ---------------------------------------------------------------------------------------------------------------
// Long rows: shared helpers.
// ---------------------------------------------------------------------------------------------------------------
extern __shared__ float4 dyn_smem[];

// exp(v - m) by exp2: the difference first, so a row of -FLT_MAX (a masked row) gives exp(0), not inf - inf.
__device__ __forceinline__ float exp_from(float v, float m) { return exp2f((v - m) * KEVO_LOG2E); }
__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float4 exp4(float4 v, float m) {
    return make_float4(exp_from(v.x, m), exp_from(v.y, m), exp_from(v.z, m), exp_from(v.w, m));
}
__device__ __forceinline__ float4 scale4(float4 v, float f) { return make_float4(v.x * f, v.y * f, v.z * f, v.w * f); }

// Merges the partial softmax (m2, s2) into (m, s): s sums exp(v - m) over its elements; (-inf, 0) is empty.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    const float mn = fmaxf(m, m2);
    if (mn == -KEVO_INF) return;
    s = s * exp_from(m, mn) + s2 * exp_from(m2, mn);
    m = mn;
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) merge(m, s, __shfl_xor_sync(KEVO_FULL_MASK, m, o), __shfl_xor_sync(KEVO_FULL_MASK, s, o));
}

// A partial softmax reduced over the block; every thread gets the result. Callers separate two calls by a barrier.
__device__ __forceinline__ void block_merge(float& m, float& s) {
    __shared__ float2 part[32];
    warp_merge(m, s);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = make_float2(m, s);
    __syncthreads();
    const float2 p = (threadIdx.x & 31) < (blockDim.x >> 5) ? part[threadIdx.x & 31] : make_float2(-KEVO_INF, 0.0f);
    m = p.x;
    s = p.y;
    warp_merge(m, s);
}

// ---------------------------------------------------------------------------------------------------------------
// Few long rows: one cooperative launch, every block resident. Row r is split into `chunks` contiguous pieces of its
// aligned float4s (one block each); the up to 3 unaligned elements at each end go to the first and last piece. A
// block holds NR float4 per thread in registers and NS in shared memory (cp.async); anything past that is streamed
// (online max/sum) and read again after the barrier. Each block publishes its (max, sum) in ws, all blocks meet at
// one grid barrier, each merges its row's pairs and writes its piece once.
// ---------------------------------------------------------------------------------------------------------------
__device__ unsigned coop_arrivals;  // zero at module load; each barrier adds exactly 2^31

__device__ __forceinline__ void grid_barrier() {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
        __threadfence();
        const unsigned before = atomicAdd(&coop_arrivals, add);
        while (((before ^ *(volatile unsigned*)&coop_arrivals) & 0x80000000u) == 0) {}
        __threadfence();
    }
    __syncthreads();
}

template <int T, int NR, int NS>
__device__ __forceinline__ void coop_softmax(const float* __restrict__ x, float* __restrict__ y, float2* ws, int cols, int chunks) {
    const float NEG = -KEVO_INF;
    const long long row = blockIdx.x / (unsigned)chunks;
    const int piece = (int)(blockIdx.x % (unsigned)chunks);
    const long long base = row * cols;
    const int head = min(cols, (int)((4 - (base & 3)) & 3));
    const int nv = (cols - head) >> 2, tail = cols - head - 4 * nv;
    const int per = kevo_cdiv(nv, chunks);
    const int v0 = min(piece * per, nv), v1 = min(v0 + per, nv);
    const float4* xv = reinterpret_cast<const float4*>(x + base + head);
    float4* yv = reinterpret_cast<float4*>(y + base + head);
    const int t = threadIdx.x;

#pragma unroll
    for (int k = 0; k < NS; k++) {
        const int i = v0 + t + (NR + k) * T;
        kevo_cp_async16(&dyn_smem[k * T + t], xv + (i < v1 ? i : 0), i < v1);
    }
    float4 r[NR];
#pragma unroll
    for (int k = 0; k < NR; k++) {
        const int i = v0 + t + k * T;
        r[k] = i < v1 ? __ldg(xv + i) : make_float4(NEG, NEG, NEG, NEG);
    }
    float hv = piece == 0 && t < head ? x[base + t] : NEG;
    float tv = piece == chunks - 1 && t < tail ? x[base + head + 4LL * nv + t] : NEG;

    // What the block cannot hold: an online (max, sum), read again after the barrier.
    const int vs = v0 + (NR + NS) * T;
    float ms = NEG, ss = 0.0f;
    for (int i = vs + t; i < v1; i += T) {
        const float4 v = __ldg(xv + i);
        const float mv = max4(v);
        if (mv != NEG) {
            if (mv > ms) { ss *= exp_from(ms, mv); ms = mv; }
            ss += sum4(exp4(v, ms));
        }
    }

    float m = fmaxf(fmaxf(hv, tv), ms);
#pragma unroll
    for (int k = 0; k < NR; k++) m = fmaxf(m, max4(r[k]));
    if (NS > 0) kevo_cp_async_wait();
#pragma unroll
    for (int k = 0; k < NS; k++) {
        if (v0 + t + (NR + k) * T < v1) m = fmaxf(m, max4(dyn_smem[k * T + t]));
    }
    // A thread with nothing but -inf takes its elements against 0: each becomes 0.
    const float mk = m == NEG ? 0.0f : m;
    float s = ss * exp_from(ms, mk);
#pragma unroll
    for (int k = 0; k < NR; k++) {
        r[k] = exp4(r[k], mk);
        s += sum4(r[k]);
    }
#pragma unroll
    for (int k = 0; k < NS; k++) {
        if (v0 + t + (NR + k) * T < v1) {
            const float4 v = exp4(dyn_smem[k * T + t], mk);
            s += sum4(v);
            dyn_smem[k * T + t] = v;
        }
    }
    hv = exp_from(hv, mk);
    tv = exp_from(tv, mk);
    s += hv + tv;

    float M = m, S = s;
    block_merge(M, S);
    if (t == 0) ws[blockIdx.x] = make_float2(M, S);
    grid_barrier();

    M = NEG;
    S = 0.0f;
    const float2* wr = ws + row * chunks;
    for (int j = t; j < chunks; j += T) {
        const float2 p = __ldcg(wr + j);
        merge(M, S, p.x, p.y);
    }
    block_merge(M, S);

    const float inv = 1.0f / S;  // S >= 1: the row max adds exp(0)
    const float f = m == NEG ? 0.0f : exp_from(m, M) * inv;
#pragma unroll
    for (int k = 0; k < NR; k++) {
        const int i = v0 + t + k * T;
        if (i < v1) yv[i] = scale4(r[k], f);
    }
#pragma unroll
    for (int k = 0; k < NS; k++) {
        const int i = v0 + t + (NR + k) * T;
        if (i < v1) yv[i] = scale4(dyn_smem[k * T + t], f);
    }
    if (piece == 0 && t < head) y[base + t] = hv * f;
    if (piece == chunks - 1 && t < tail) y[base + head + 4LL * nv + t] = tv * f;
    for (int i = vs + t; i < v1; i += T) yv[i] = scale4(exp4(__ldg(xv + i), M), inv);
}

extern "C" __global__ void __launch_bounds__(COOP_THREADS, COOP_BPS) coop_rows(const float* x, float* y, float2* ws, int cols, int chunks) {
    coop_softmax<COOP_THREADS, COOP_NR, COOP_NS>(x, y, ws, cols, chunks);
}

// ---------------------------------------------------------------------------------------------------------------
// Many long rows: one row per cluster of blocks; block `rank` holds a contiguous share of the row's aligned float4s,
// NR per thread in registers and NS in shared memory; (max, sum) pairs meet over warp, block and cluster.
// ---------------------------------------------------------------------------------------------------------------
template <int T, int NR, int NS>
__device__ __forceinline__ void row_softmax(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float2 block_stat;
    const float NEG = -KEVO_INF;
    const unsigned C = kevo_cluster_size(), rank = kevo_cluster_rank();
    const long long base = (long long)(blockIdx.x / C) * cols;
    const int head = min(cols, (int)((4 - (base & 3)) & 3));
    const int nv = (cols - head) >> 2, tail = cols - head - 4 * nv;
    const int per = kevo_cdiv(nv, (int)C);
    const int v0 = min((int)rank * per, nv), v1 = min(v0 + per, nv);
    const float4* xv = reinterpret_cast<const float4*>(x + base + head);
    float4* yv = reinterpret_cast<float4*>(y + base + head);
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < NS; k++) {
        const int i = v0 + t + (NR + k) * T;
        kevo_cp_async16(&dyn_smem[k * T + t], xv + (i < v1 ? i : 0), i < v1);
    }
    float4 r[NR];
#pragma unroll
    for (int k = 0; k < NR; k++) {
        const int i = v0 + t + k * T;
        r[k] = i < v1 ? __ldg(xv + i) : make_float4(NEG, NEG, NEG, NEG);
    }
    float hv = rank == 0 && t < head ? x[base + t] : NEG;
    float tv = rank == C - 1 && t < tail ? x[base + head + 4LL * nv + t] : NEG;
    float m = fmaxf(hv, tv);
#pragma unroll
    for (int k = 0; k < NR; k++) m = fmaxf(m, max4(r[k]));
    if (NS > 0) kevo_cp_async_wait();
#pragma unroll
    for (int k = 0; k < NS; k++) {
        if (v0 + t + (NR + k) * T < v1) m = fmaxf(m, max4(dyn_smem[k * T + t]));
    }
    const float mk = m == NEG ? 0.0f : m;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NR; k++) {
        r[k] = exp4(r[k], mk);
        s += sum4(r[k]);
    }
#pragma unroll
    for (int k = 0; k < NS; k++) {
        if (v0 + t + (NR + k) * T < v1) {
            const float4 v = exp4(dyn_smem[k * T + t], mk);
            s += sum4(v);
            dyn_smem[k * T + t] = v;
        }
    }
    hv = exp_from(hv, mk);
    tv = exp_from(tv, mk);
    s += hv + tv;
    float M = m, S = s;
    block_merge(M, S);
    if (C > 1) {
        if (t == 0) block_stat = make_float2(M, S);
        kevo_cluster_sync();
        const float2 p = (t & 31) < (int)C ? kevo_cluster_ld_f2(&block_stat, t & 31) : make_float2(NEG, 0.0f);
        M = p.x;
        S = p.y;
        warp_merge(M, S);
        kevo_cluster_arrive();  // done reading the peers' shared memory
    }
    const float f = m == NEG ? 0.0f : exp_from(m, M) / S;
#pragma unroll
    for (int k = 0; k < NR; k++) {
        const int i = v0 + t + k * T;
        if (i < v1) yv[i] = scale4(r[k], f);
    }
#pragma unroll
    for (int k = 0; k < NS; k++) {
        const int i = v0 + t + (NR + k) * T;
        if (i < v1) yv[i] = scale4(dyn_smem[k * T + t], f);
    }
    if (rank == 0 && t < head) y[base + t] = hv * f;
    if (rank == C - 1 && t < tail) y[base + head + 4LL * nv + t] = tv * f;
    if (C > 1) kevo_cluster_wait();  // peers may still be reading this block's pair
}

extern "C" __global__ void __launch_bounds__(CL_THREADS, 1024 / CL_THREADS) rows_long(const float* x, float* y, int rows, int cols) {
    row_softmax<CL_THREADS, 8, CL_NS>(x, y, cols);
}

// ---------------------------------------------------------------------------------------------------------------
// Many rows too long for a cluster: each block reduces one chunk to a (max, sum) pair in ws; each block of the second
// launch merges its row's pairs and writes its chunk. x is read twice.
// ---------------------------------------------------------------------------------------------------------------
extern "C" __global__ void chunk_stats(const float* x, float2* ws, int cols, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / (unsigned)chunks;
    const int c0 = (int)(blockIdx.x % (unsigned)chunks) * chunk, c1 = min(c0 + chunk, cols);
    const float* xr = x + row * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) m = fmaxf(m, xr[c]);
    if (m != -KEVO_INF) {
        for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) s += exp_from(xr[c], m);
    }
    block_merge(m, s);
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(m, s);
}

extern "C" __global__ void chunk_write(const float* x, float* y, const float2* ws, int cols, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / (unsigned)chunks;
    const int c0 = (int)(blockIdx.x % (unsigned)chunks) * chunk, c1 = min(c0 + chunk, cols);
    float m = -KEVO_INF, s = 0.0f;
    for (int j = threadIdx.x; j < chunks; j += blockDim.x) merge(m, s, ws[row * chunks + j].x, ws[row * chunks + j].y);
    block_merge(m, s);
    const float inv = 1.0f / s;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) yr[c] = exp_from(xr[c], m) * inv;
}
