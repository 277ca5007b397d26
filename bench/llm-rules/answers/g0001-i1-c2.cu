/*@kevo
{
  "description": "register rows (warp per row up to 1024 cols, block per row up to REG_MAX) read once into registers; longer rows held on chip across a thread-block cluster (up to CL_MAX blocks meeting in distributed shared memory, more blocks when rows are few); rows longer than a cluster holds split over the GPU (float4 online partials, then a reverse-order write pass re-reading x from L2)",
  "knobs": {
    "WARPS": { "values": [1, 2, 4, 8, 16, 32], "value": 8, "about": "rows (one warp each) per block up to 1024 columns" },
    "BLOCK_N": { "values": [4, 8, 16], "value": 8, "about": "elements per thread of the block-per-row kernel, which serves rows up to 1024 * BLOCK_N" },
    "BLOCK_MIN": { "values": [32, 64, 128, 256, 512, 1024], "value": 256, "about": "fewest threads of a block-per-row launch" },
    "REG_MAX": { "values": [4096, 8192, 12288, 16384], "value": 16384, "about": "longest row of the register kernels; longer rows go to the cluster kernel" },
    "LONG_THREADS": { "values": [256, 512, 1024], "value": 512, "about": "threads per block of a long row" },
    "SMEM_VECS": { "values": [0, 4, 8], "value": 8, "about": "float4 per thread a long-row block keeps in shared memory, beside the 8 in registers" },
    "CL_MAX": { "values": [8, 16], "value": 16, "about": "largest cluster of a long row" },
    "FILL": { "values": [1, 2, 3, 4], "value": 2, "about": "cluster blocks aimed for per SM when rows are few" },
    "CHUNK": { "values": [1024, 2048, 4096, 8192, 16384], "value": 2048, "about": "fewest elements per chunk of a split row" },
    "BLOCKS_PER_SM": { "values": [1, 2, 4, 8], "value": 4, "about": "chunks a few split rows spread over, per SM" },
    "SPLIT_THREADS": { "values": [128, 256, 512], "value": 256 },
    "UNROLL": { "values": [2, 4, 8], "value": 4, "about": "float4 loads in flight per thread on the split path" },
    "STATS_HINT": { "values": ["KEEP", "NORMAL"], "value": "KEEP", "about": "L2 priority of the first read of a split row" }
  },
  "knob_rule": "LONG_THREADS * SMEM_VECS * 16 <= 200000",
  "workspace": "rows * max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows))) * 8",
  "plans": [
    { "when": "cols <= 128",
      "launches": [ { "kernel": "softmax_warp4", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 256",
      "launches": [ { "kernel": "softmax_warp8", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_warp16", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 1024",
      "launches": [ { "kernel": "softmax_warp32", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= min(1024 * BLOCK_N, REG_MAX)",
      "launches": [ { "kernel": "softmax_block_n", "grid": "rows", "block": "min(1024, max(BLOCK_MIN, 32 * cdiv(cols, 32 * BLOCK_N)))", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= REG_MAX",
      "launches": [ { "kernel": "softmax_block16", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= CL_MAX * LONG_THREADS * 4 * (8 + SMEM_VECS)",
      "launches": [ { "kernel": "rows_long",
                      "grid": "rows * min(CL_MAX, max(cdiv(cols, LONG_THREADS * 4 * (8 + SMEM_VECS)), cdiv(FILL * sms, rows)))",
                      "block": "LONG_THREADS",
                      "cluster": "min(CL_MAX, max(cdiv(cols, LONG_THREADS * 4 * (8 + SMEM_VECS)), cdiv(FILL * sms, rows)))",
                      "smem": "LONG_THREADS * SMEM_VECS * 16",
                      "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "split_stats",
                      "grid": "rows * max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))",
                      "block": "SPLIT_THREADS",
                      "args": ["x", "ws", "cols", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] },
                    { "kernel": "split_write",
                      "grid": "rows * max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))",
                      "block": "SPLIT_THREADS",
                      "args": ["x", "y", "ws", "cols", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] } ] }
  ]
}
*/
#include "kevo.h"

// ---------------- Register rows (short and medium rows) ----------------

// Blocks are a multiple of 32 threads (full-mask shuffles). PerWarp reductions stay in the
// warp; otherwise the per-warp results meet in sh and every warp folds them.
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

// Each thread keeps N elements of its row in v[]; the plan guarantees
// cols <= N * 32 (PerWarp) or cols <= N * blockDim.x (block per row).
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
        v[j] = c < cols ? kevo_to_float(xr[c]) : -KEVO_INF;  // padding as -inf vanishes in both max and exp
    }
    float m = -KEVO_INF;
#pragma unroll
    for (int j = 0; j < N; ++j) m = fmaxf(m, v[j]);
    m = reduce<true, PerWarp>(m, sh);  // finite: every row has a finite entry

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
// 1024 bounds: the same code runs at BLOCK_MIN to 1024 threads, so keep it within 64 registers.
extern "C" __global__ void __launch_bounds__(1024) softmax_block_n(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<BLOCK_N, false>(x, y, rows, cols); }
extern "C" __global__ void __launch_bounds__(1024) softmax_block16(const KEVO_X* x, KEVO_Y* y, int rows, int cols) { softmax_regs<16, false>(x, y, rows, cols); }

// ---------------- Cluster rows (long rows) ----------------

// exp(v - m) by exp2: the difference first, so that a row of -FLT_MAX (a masked row) gives exp(0), not inf - inf.
__device__ __forceinline__ float exp_from(float v, float m) { return exp2f((v - m) * KEVO_LOG2E); }

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

// A partial softmax reduced over the block; every thread gets the result. Once per kernel (no trailing barrier).
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

__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

// One row per block, or per cluster of blocks: block `rank` of the cluster holds a contiguous share of the row's
// aligned float4s, NR of them per thread in registers and NS in shared memory (fetched by cp.async). The up to 3
// unaligned elements at each end of the row are held by the first and the last block. (max, sum) pairs merge over
// the warp, the block and the cluster, and each thread scales by one factor.
template <int T, int NR, int NS>
__device__ __forceinline__ void row_softmax(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float4 held[];
    __shared__ float2 block_stat;
    const float NEG = -KEVO_INF;
    const unsigned C = kevo_cluster_size(), rank = kevo_cluster_rank();
    const long long base = (long long)(blockIdx.x / C) * cols;
    const int head = min(cols, (int)((4 - (base & 3)) & 3));
    const int nv = (cols - head) >> 2, tail = cols - head - 4 * nv;
    const int per = kevo_cdiv(nv, (int)C);
    const int v0 = min(nv, (int)rank * per), v1 = min(v0 + per, nv);
    const float4* xv = reinterpret_cast<const float4*>(x + base + head);
    float4* yv = reinterpret_cast<float4*>(y + base + head);
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < NS; k++) {
        const int i = v0 + t + (NR + k) * T;
        kevo_cp_async16(&held[k * T + t], xv + (i < v1 ? i : 0), i < v1);
    }
    float4 r[NR];
#pragma unroll
    for (int k = 0; k < NR; k++) {
        const int i = v0 + t + k * T;
        r[k] = i < v1 ? xv[i] : make_float4(NEG, NEG, NEG, NEG);
    }
    float hv = rank == 0 && t < head ? x[base + t] : NEG;
    float tv = rank == C - 1 && t < tail ? x[base + head + 4LL * nv + t] : NEG;
    float m = fmaxf(hv, tv);
#pragma unroll
    for (int k = 0; k < NR; k++) m = fmaxf(m, max4(r[k]));
    if (NS > 0) kevo_cp_async_wait();
#pragma unroll
    for (int k = 0; k < NS; k++) {
        if (v0 + t + (NR + k) * T < v1) m = fmaxf(m, max4(held[k * T + t]));
    }
    // A thread whose elements are all -inf (masked, or past the row) takes them against 0: each becomes 0.
    const float mk = m == NEG ? 0.0f : m;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NR; k++) {
        r[k] = make_float4(exp_from(r[k].x, mk), exp_from(r[k].y, mk), exp_from(r[k].z, mk), exp_from(r[k].w, mk));
        s += (r[k].x + r[k].y) + (r[k].z + r[k].w);
    }
#pragma unroll
    for (int k = 0; k < NS; k++) {
        if (v0 + t + (NR + k) * T < v1) {
            float4 v = held[k * T + t];
            v = make_float4(exp_from(v.x, mk), exp_from(v.y, mk), exp_from(v.z, mk), exp_from(v.w, mk));
            s += (v.x + v.y) + (v.z + v.w);
            held[k * T + t] = v;
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
        kevo_cluster_arrive();  // this block is done reading its peers' shared memory
    }
    const float f = m == NEG ? 0.0f : exp_from(m, M) / S;
#pragma unroll
    for (int k = 0; k < NR; k++) {
        const int i = v0 + t + k * T;
        if (i < v1) yv[i] = make_float4(r[k].x * f, r[k].y * f, r[k].z * f, r[k].w * f);
    }
#pragma unroll
    for (int k = 0; k < NS; k++) {
        const int i = v0 + t + (NR + k) * T;
        if (i < v1) {
            const float4 v = held[k * T + t];
            yv[i] = make_float4(v.x * f, v.y * f, v.z * f, v.w * f);
        }
    }
    if (rank == 0 && t < head) y[base + t] = hv * f;
    if (rank == C - 1 && t < tail) y[base + head + 4LL * nv + t] = tv * f;
    if (C > 1) kevo_cluster_wait();  // peers may still be reading this block's pair
}

extern "C" __global__ void __launch_bounds__(LONG_THREADS, 1024 / LONG_THREADS) rows_long(const float* x, float* y, int rows, int cols) {
    row_softmax<LONG_THREADS, 8, SMEM_VECS>(x, y, cols);
}

// ---------------- Split rows (longer than a cluster holds): x read twice, the second time mostly from L2 ----------------

__device__ __forceinline__ float4 load_policy(const float4* p, unsigned long long policy) {
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
    return v;
}

__device__ __forceinline__ void store_once(float4* p, float4 v) {
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
}

// Block p of a row's `parts` blocks owns aligned float4s [v0, v1); block 0 owns the head scalars, the last block
// the tail scalars (thread t < head / t < tail each).
struct Share {
    long long base, row;
    int head, nv, tail, v0, v1, p;
};
__device__ __forceinline__ Share share_of(unsigned b, int cols, int parts) {
    Share q;
    q.p = (int)(b % (unsigned)parts);
    q.row = (long long)(b / (unsigned)parts);
    q.base = q.row * cols;
    q.head = min(cols, (int)((4 - (q.base & 3)) & 3));
    q.nv = (cols - q.head) >> 2;
    q.tail = cols - q.head - 4 * q.nv;
    const int per = kevo_cdiv(q.nv, parts);
    q.v0 = min(q.nv, q.p * per);
    q.v1 = min(q.v0 + per, q.nv);
    return q;
}

// Launch 1: each block's (max, sum of exp) over its share, one online pass with UNROLL float4 loads in flight.
extern "C" __global__ void __launch_bounds__(SPLIT_THREADS) split_stats(const float* x, float2* ws, int cols, int parts) {
    const float NEG = -KEVO_INF;
    unsigned long long policy;
#if defined(STATS_HINT_KEEP)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#else
    asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(policy));
#endif
    const Share q = share_of(blockIdx.x, cols, parts);
    const int t = threadIdx.x;
    const float4* xv = reinterpret_cast<const float4*>(x + q.base + q.head);
    const float hv = q.p == 0 && t < q.head ? x[q.base + t] : NEG;
    const float tv = q.p == parts - 1 && t < q.tail ? x[q.base + q.head + 4LL * q.nv + t] : NEG;
    float m = fmaxf(hv, tv), s = 0.0f;
    if (m != NEG) s = exp_from(hv, m) + exp_from(tv, m);
    for (int i0 = q.v0 + t; i0 < q.v1; i0 += SPLIT_THREADS * UNROLL) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = i0 + u * SPLIT_THREADS;
            v[u] = i < q.v1 ? load_policy(xv + i, policy) : make_float4(NEG, NEG, NEG, NEG);
        }
        float bm = m;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) bm = fmaxf(bm, max4(v[u]));
        if (bm != NEG) {
            s *= exp_from(m, bm);  // m == -inf: 0 (s is 0 then)
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                s += (exp_from(v[u].x, bm) + exp_from(v[u].y, bm)) + (exp_from(v[u].z, bm) + exp_from(v[u].w, bm));
            m = bm;
        }
    }
    block_merge(m, s);
    if (t == 0) ws[blockIdx.x] = make_float2(m, s);
}

// Launch 2: merge the row's partials, then write the share. Blocks take the shares in reverse order, so the
// ones launch 1 read last (still in L2) are read again first.
extern "C" __global__ void __launch_bounds__(SPLIT_THREADS) split_write(const float* x, float* y, const float2* ws, int cols,
                                                                      int parts) {
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    const Share q = share_of(gridDim.x - 1 - blockIdx.x, cols, parts);
    const int t = threadIdx.x;
    float m = -KEVO_INF, s = 0.0f;
    const float2* pr = ws + q.row * parts;
    for (int j = t; j < parts; j += SPLIT_THREADS) {
        const float2 w = pr[j];
        merge(m, s, w.x, w.y);
    }
    block_merge(m, s);  // m is finite: every row has a finite entry
    const float inv = 1.0f / s;
    const float4* xv = reinterpret_cast<const float4*>(x + q.base + q.head);
    float4* yv = reinterpret_cast<float4*>(y + q.base + q.head);
    if (q.p == 0 && t < q.head) y[q.base + t] = exp_from(x[q.base + t], m) * inv;
    if (q.p == parts - 1 && t < q.tail) {
        const long long c = q.base + q.head + 4LL * q.nv + t;
        y[c] = exp_from(x[c], m) * inv;
    }
    for (int i0 = q.v0 + t; i0 < q.v1; i0 += SPLIT_THREADS * UNROLL) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = i0 + u * SPLIT_THREADS;
            if (i < q.v1) v[u] = load_policy(xv + i, policy);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = i0 + u * SPLIT_THREADS;
            if (i < q.v1)
                store_once(yv + i, make_float4(exp_from(v[u].x, m) * inv, exp_from(v[u].y, m) * inv,
                                               exp_from(v[u].z, m) * inv, exp_from(v[u].w, m) * inv));
        }
    }
}
