/*@kevo
{
  "description": "rows held on chip and written once: warp per row up to 1024 cols, float4 block per row (one fused (max,sum) reduction) for medium rows, a cluster of blocks per long row meeting in distributed shared memory; rows longer than a cluster holds use block_stats' split (partials, merge, normalise)",
  "knobs": {
    "WARPS": { "values": [1, 2, 4, 8, 16, 32], "value": 8, "about": "rows (one warp each) per block up to 1024 columns" },
    "MED_V": { "values": [2, 4, 8], "value": 4, "about": "float4 per thread of the block-per-row kernel, which serves rows up to 4096 * MED_V columns" },
    "MED_MIN": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "fewest threads of a block-per-row launch" },
    "CL_THREADS": { "values": [256, 512, 1024], "value": 512, "about": "threads per block of a cluster-held long row" },
    "CL_NS": { "values": [0, 4, 8], "value": 8, "about": "float4 per thread a cluster block keeps in shared memory, beside the 8 in registers" },
    "CHUNK": { "values": [512, 1024, 2048, 4096, 8192, 16384], "value": 4096, "about": "fewest elements per chunk of a split row" },
    "BLOCKS_PER_SM": { "values": [1, 2, 4, 8, 16], "value": 4, "about": "chunks a few long rows spread over, per SM" },
    "STATS_BLOCK": { "values": [64, 128, 256, 512, 1024], "value": 256, "about": "threads per chunk" },
    "NORM_BLOCK": { "values": [128, 256, 512, 1024], "value": 256, "about": "threads per block of the normalise pass" },
    "NORM_BLOCKS_PER_SM": { "values": [2, 4, 8, 16, 32], "value": 8, "about": "normalise blocks per SM (a grid-stride loop)" }
  },
  "knob_rule": "STATS_BLOCK <= CHUNK && CL_THREADS * CL_NS * 16 <= 200000",
  "workspace": "rows * (max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows))) + 1) * 8",
  "plans": [
    { "when": "cols <= 128",
      "launches": [ { "kernel": "softmax_warp4", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 256",
      "launches": [ { "kernel": "softmax_warp8", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_warp16", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 1024",
      "launches": [ { "kernel": "softmax_warp32", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096 * MED_V",
      "launches": [ { "kernel": "rows_med", "grid": "rows", "block": "min(1024, max(MED_MIN, 32 * cdiv(cols, 128 * MED_V)))",
                      "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 8 * CL_THREADS * 4 * (8 + CL_NS)",
      "launches": [ { "kernel": "rows_long", "grid": "rows * cdiv(cols, CL_THREADS * 4 * (8 + CL_NS))", "block": "CL_THREADS",
                      "cluster": "cdiv(cols, CL_THREADS * 4 * (8 + CL_NS))", "smem": "CL_THREADS * CL_NS * 16",
                      "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "chunk_stats", "grid": "rows * max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))", "block": "STATS_BLOCK",
                      "args": ["x", "ws", "cols", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] },
                    { "kernel": "merge_stats", "grid": "cdiv(rows, 8)", "block": 256,
                      "args": ["ws", "rows", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] },
                    { "kernel": "normalise", "grid": "min(cdiv(rows * cols, NORM_BLOCK), sms * NORM_BLOCKS_PER_SM)", "block": "NORM_BLOCK",
                      "args": ["x", "y", "ws", "rows", "cols", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] } ] }
  ]
}
*/
#include "kevo.h"

// exp(v - m) by exp2: the difference first, so a row of -FLT_MAX (a masked row) gives exp(0), not inf - inf.
__device__ __forceinline__ float exp_from(float v, float m) { return exp2f((v - m) * KEVO_LOG2E); }
__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float4 exp4(float4 v, float m) {
    return make_float4(exp_from(v.x, m), exp_from(v.y, m), exp_from(v.z, m), exp_from(v.w, m));
}
__device__ __forceinline__ float4 scale4(float4 v, float f) { return make_float4(v.x * f, v.y * f, v.z * f, v.w * f); }

// ---------------------------------------------------------------------------------------------------------------
// Short rows (cols <= 1024): a warp per row, N elements per lane in registers.
// ---------------------------------------------------------------------------------------------------------------
template <int N>
__device__ __forceinline__ void softmax_warp_regs(const float* x, float* y, int rows, int cols) {
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;  // a whole warp leaves together, so its shuffles stay full-mask
    const int lane = threadIdx.x & 31;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int c = lane + j * 32;
        v[j] = c < cols ? xr[c] : -KEVO_INF;
    }
    float m = -KEVO_INF;
#pragma unroll
    for (int j = 0; j < N; ++j) m = fmaxf(m, v[j]);
    m = kevo_warp_max(m);  // finite: every row has a finite entry
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < N; ++j) { v[j] = exp_from(v[j], m); s += v[j]; }
    s = kevo_warp_sum(s);
    const float inv = 1.0f / s;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int c = lane + j * 32;
        if (c < cols) yr[c] = v[j] * inv;
    }
}

extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp4(const float* x, float* y, int rows, int cols) { softmax_warp_regs<4>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp8(const float* x, float* y, int rows, int cols) { softmax_warp_regs<8>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp16(const float* x, float* y, int rows, int cols) { softmax_warp_regs<16>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(WARPS * 32) softmax_warp32(const float* x, float* y, int rows, int cols) { softmax_warp_regs<32>(x, y, rows, cols); }

// ---------------------------------------------------------------------------------------------------------------
// Medium and long rows: one row per block, or per cluster of blocks.
// ---------------------------------------------------------------------------------------------------------------
extern __shared__ float4 dyn_smem[];

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

// A partial softmax reduced over the block with a single barrier; every thread gets the result.
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

// Block `rank` of the row's cluster (rank 0 of 1 without a cluster) holds a contiguous share of the row's aligned
// float4s: NR per thread in registers and NS in shared memory (cp.async). The up to 3 unaligned elements at each end
// of the row go to the first and last block. Each thread exponentiates against its own max as soon as its data is
// in; the (max, sum) pairs merge over the warp, the block and the cluster, and each thread scales by one factor.
template <int NR, int NS>
__device__ __forceinline__ void row_softmax(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float2 block_stat;
    const float NEG = -KEVO_INF;
    const int T = blockDim.x;
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
    // A thread with nothing but -inf takes its elements against 0: each becomes 0.
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
        // Each block publishes its pair; after the cluster barrier every warp reads all of them.
        if (t == 0) block_stat = make_float2(M, S);
        kevo_cluster_sync();
        const float2 p = (t & 31) < (int)C ? kevo_cluster_ld_f2(&block_stat, t & 31) : make_float2(NEG, 0.0f);
        M = p.x;
        S = p.y;
        warp_merge(M, S);
        kevo_cluster_arrive();  // done reading the peers' shared memory
    }
    const float f = m == NEG ? 0.0f : exp_from(m, M) / S;  // S >= 1: the row max adds exp(0)
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

// Medium rows: the plan gives at least cdiv(cols, 4 * MED_V) threads (a multiple of 32, at most 1024).
extern "C" __global__ void __launch_bounds__(1024) rows_med(const float* x, float* y, int rows, int cols) {
    row_softmax<MED_V, 0>(x, y, cols);
}

// Long rows: a cluster of cdiv(cols, CL_THREADS * 4 * (8 + CL_NS)) blocks per row.
extern "C" __global__ void __launch_bounds__(CL_THREADS, 1024 / CL_THREADS) rows_long(const float* x, float* y, int rows, int cols) {
    row_softmax<8, CL_NS>(x, y, cols);
}

// ---------------------------------------------------------------------------------------------------------------
// Rows longer than a cluster holds: block_stats' split. ws: rows * chunks float2 partials, then rows float2
// (max, 1/sum).
// ---------------------------------------------------------------------------------------------------------------
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * exp_from(m, v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += exp_from(v, m);
}

extern "C" __global__ void chunk_stats(const float* x, float* ws, int cols, int chunks) {
    const long long row = blockIdx.x / (unsigned)chunks;
    const int k = (int)(blockIdx.x % (unsigned)chunks);
    const int len = kevo_cdiv(cols, chunks);
    const int begin = min(cols, k * len), end = min(cols, begin + len);
    const float* xr = x + row * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = begin + threadIdx.x; c < end; c += blockDim.x) online_add(m, s, xr[c]);
    block_merge(m, s);
    if (threadIdx.x == 0) reinterpret_cast<float2*>(ws)[blockIdx.x] = make_float2(m, s);
}

// One warp per row folds that row's partials.
extern "C" __global__ void merge_stats(float* ws, int rows, int chunks) {
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;  // whole warp leaves together, so the shuffles below stay full-mask
    const float2* part = reinterpret_cast<const float2*>(ws) + row * chunks;
    float m = -KEVO_INF, s = 0.0f;
    for (int k = threadIdx.x & 31; k < chunks; k += 32) merge(m, s, part[k].x, part[k].y);
    warp_merge(m, s);
    float2* stats = reinterpret_cast<float2*>(ws) + (size_t)rows * chunks;
    if ((threadIdx.x & 31) == 0) stats[row] = make_float2(m, 1.0f / s);
}

extern "C" __global__ void normalise(const float* x, float* y, const float* ws, int rows, int cols, int chunks) {
    const float2* stats = reinterpret_cast<const float2*>(ws) + (size_t)rows * chunks;
    const size_t total = (size_t)rows * cols;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    int r = (int)(i / cols), c = (int)(i % cols);
    const int dr = (int)(stride / cols), dc = (int)(stride % cols);
    for (; i < total; i += stride) {
        const float2 st = stats[r];
        y[i] = exp_from(x[i], st.x) * st.y;
        c += dc; r += dr;
        if (c >= cols) { c -= cols; ++r; }
    }
}
