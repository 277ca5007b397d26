/*@kevo
{
  "description": "rows held on chip: a row per block (short and medium rows) or per thread-block cluster (long rows, up to 8 blocks that meet in distributed shared memory), each element read once into registers or shared memory and written once; rows longer than a cluster holds are split over the GPU and read twice",
  "knobs": {
    "LONG_THREADS": { "values": [256, 512, 1024], "value": 512, "about": "threads per block of a long row" },
    "SMEM_VECS": { "values": [0, 4, 8], "value": 4, "about": "float4 per thread a long-row block keeps in shared memory, beside the 8 in registers" },
    "CHUNK": { "values": [2048, 4096, 8192], "value": 4096, "about": "elements per block of a row longer than a cluster holds" }
  },
  "knob_rule": "LONG_THREADS * SMEM_VECS * 16 <= 200000",
  "workspace": "rows * cdiv(cols, CHUNK) * 8",
  "plans": [
    { "when": "cols <= 256",
      "launches": [ { "kernel": "rows_32", "grid": "rows", "block": 32, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 1024",
      "launches": [ { "kernel": "rows_64", "grid": "rows", "block": 64, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "rows_128", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 8192",
      "launches": [ { "kernel": "rows_256", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 8 * LONG_THREADS * 4 * (8 + SMEM_VECS)",
      "launches": [ { "kernel": "rows_long", "grid": "rows * cdiv(cols, LONG_THREADS * 4 * (8 + SMEM_VECS))", "block": "LONG_THREADS",
                      "cluster": "cdiv(cols, LONG_THREADS * 4 * (8 + SMEM_VECS))", "smem": "LONG_THREADS * SMEM_VECS * 16",
                      "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "chunk_stats", "grid": "rows * cdiv(cols, CHUNK)", "block": 256, "args": ["x", "ws", "cols", "CHUNK"] },
                    { "kernel": "chunk_write", "grid": "rows * cdiv(cols, CHUNK)", "block": 256, "args": ["x", "y", "ws", "cols", "CHUNK"] } ] }
  ]
}
*/
#include "kevo.h"

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

// A partial softmax reduced over the block; every thread gets the result.
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

// One row per block, or per cluster of blocks: block `rank` of the cluster holds a contiguous share of the row's
// aligned float4s, NR of them per thread in registers and NS in shared memory (fetched by cp.async, so they do
// not pass through registers). The up to 3 unaligned elements at each end of the row are held by the first and
// the last block. Each thread takes the exponentials of its own elements against its own max as they land; the
// (max, sum) pairs then merge over the warp, the block and the cluster, and each thread scales by one factor.
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
    const int v0 = (int)rank * per, v1 = min(v0 + per, nv);
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
    for (int k = 0; k < NR; k++) m = fmaxf(m, fmaxf(fmaxf(r[k].x, r[k].y), fmaxf(r[k].z, r[k].w)));
    if (NS > 0) kevo_cp_async_wait();
#pragma unroll
    for (int k = 0; k < NS; k++) {
        if (v0 + t + (NR + k) * T < v1) {
            const float4 v = held[k * T + t];
            m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
        }
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

extern "C" __global__ void __launch_bounds__(32) rows_32(const float* x, float* y, int rows, int cols) { row_softmax<32, 2, 0>(x, y, cols); }
extern "C" __global__ void __launch_bounds__(64) rows_64(const float* x, float* y, int rows, int cols) { row_softmax<64, 4, 0>(x, y, cols); }
extern "C" __global__ void __launch_bounds__(128) rows_128(const float* x, float* y, int rows, int cols) { row_softmax<128, 8, 0>(x, y, cols); }
extern "C" __global__ void __launch_bounds__(256) rows_256(const float* x, float* y, int rows, int cols) { row_softmax<256, 8, 0>(x, y, cols); }
extern "C" __global__ void __launch_bounds__(LONG_THREADS, 1024 / LONG_THREADS) rows_long(const float* x, float* y, int rows, int cols) {
    row_softmax<LONG_THREADS, 8, SMEM_VECS>(x, y, cols);
}

// Rows longer than a cluster holds: each block reduces one chunk to a (max, sum) pair in ws, then each block of
// the second launch merges its row's pairs and writes its chunk. x is read twice.
extern "C" __global__ void chunk_stats(const float* x, float2* ws, int cols, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / chunks;
    const int c0 = (int)(blockIdx.x % chunks) * chunk, c1 = min(c0 + chunk, cols);
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
    const long long row = blockIdx.x / chunks;
    const int c0 = (int)(blockIdx.x % chunks) * chunk, c1 = min(c0 + chunk, cols);
    float m = -KEVO_INF, s = 0.0f;
    for (int j = threadIdx.x; j < chunks; j += blockDim.x) merge(m, s, ws[row * chunks + j].x, ws[row * chunks + j].y);
    block_merge(m, s);
    const float inv = 1.0f / s;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) yr[c] = m == -KEVO_INF ? 0.0f : exp_from(xr[c], m) * inv;
}
