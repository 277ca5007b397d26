/*@kevo
{
  "description": "short rows: block per row (parent); long rows: row staged once in the shared memory of a cluster of up to 8 blocks, (max,sum) merged over DSMEM; very long / very few rows: split stats + combine + normalise over the whole GPU",
  "workspace": "rows * (min(cdiv(cols, SPLIT_CHUNK), SPLIT_MAX) + 1) * 8",
  "knobs": {
    "SMALL_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "threads per row up to SMALL_MAX columns" },
    "MID_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 256, "about": "threads per row up to MID_MAX columns" },
    "LARGE_BLOCK": { "values": [128, 256, 512, 1024], "value": 512, "about": "threads per block of the cluster kernel" },
    "SMALL_MAX": { "values": [128, 256, 512, 1024, 2048], "value": 512 },
    "MID_MAX": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096, "about": "beyond this the cluster kernel" },
    "CHUNK": { "values": [4096, 8192, 16384, 32768], "value": 16384, "about": "target floats held per cluster block" },
    "FILL": { "values": [1, 2, 3, 4], "value": 2, "about": "target blocks per SM when rows are few" },
    "CLUSTER_COLS_MAX": { "values": [65536, 131072, 262144, 393216, 458752], "value": 262144, "about": "longest row held on chip" },
    "SPLIT_ROWS": { "values": [1, 2, 4, 8, 16], "value": 4, "about": "fewer rows than this use the split path" },
    "SPLIT_CHUNK": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096, "about": "floats per split block" },
    "SPLIT_MAX": { "values": [256, 512, 1024, 2048, 4096], "value": 2048, "about": "most split blocks per row" },
    "SPLIT_BLOCK": { "values": [128, 256, 512], "value": 256 },
    "SPLIT_UNROLL": { "values": [1, 2, 4, 8], "value": 4, "about": "float4 loads in flight per thread" },
    "EXP": { "values": ["EXPF", "FAST"], "value": "EXPF" }
  },
  "knob_rule": "SMALL_MAX < MID_MAX",
  "plans": [
    { "when": "cols <= SMALL_MAX",
      "launches": [ { "kernel": "softmax_warp_shuffle", "grid": "rows", "block": "SMALL_BLOCK", "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= MID_MAX",
      "launches": [ { "kernel": "softmax_warp_shuffle", "grid": "rows", "block": "MID_BLOCK", "args": ["x", "y", "cols"] } ] },
    { "when": "cols > CLUSTER_COLS_MAX || rows < SPLIT_ROWS",
      "launches": [
        { "kernel": "split_stats", "grid": "rows * min(cdiv(cols, SPLIT_CHUNK), SPLIT_MAX)", "block": "SPLIT_BLOCK",
          "args": ["x", "ws", "cols", "min(cdiv(cols, SPLIT_CHUNK), SPLIT_MAX)"] },
        { "kernel": "split_combine", "grid": "rows", "block": 256,
          "args": ["ws", "min(cdiv(cols, SPLIT_CHUNK), SPLIT_MAX)"] },
        { "kernel": "split_norm", "grid": "rows * min(cdiv(cols, SPLIT_CHUNK), SPLIT_MAX)", "block": "SPLIT_BLOCK",
          "args": ["x", "y", "ws", "cols", "min(cdiv(cols, SPLIT_CHUNK), SPLIT_MAX)"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_cluster",
                      "grid": "rows * min(8, max(cdiv(cols, CHUNK), cdiv(FILL * sms, rows)))",
                      "cluster": "min(8, max(cdiv(cols, CHUNK), cdiv(FILL * sms, rows)))",
                      "block": "LARGE_BLOCK",
                      "smem": "cdiv(cdiv(cols, 4), min(8, max(cdiv(cols, CHUNK), cdiv(FILL * sms, rows)))) * 16",
                      "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

#if defined(EXP_FAST)
#define KEXP(v) __expf(v)
#else
#define KEXP(v) expf(v)
#endif

// Block must be a multiple of 32 threads (full-mask shuffles).
template <bool IsMax>
__device__ __forceinline__ float block_reduce(float v, float* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : (IsMax ? -KEVO_INF : 0.0f);
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    __syncthreads();
    return v;
}

// Block-wide online (max, sum) merge; every thread ends with the block's pair.
__device__ __forceinline__ void block_online(float& m, float& s, float* shm, float* shs) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    kevo_warp_online(m, s);
    if (lane == 0) { shm[warp] = m; shs[warp] = s; }
    __syncthreads();
    const bool ok = lane < (int)(blockDim.x >> 5);
    m = ok ? shm[lane] : -KEVO_INF;
    s = ok ? shs[lane] : 0.0f;
    kevo_warp_online(m, s);
    __syncthreads();
}

__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

__device__ __forceinline__ float4 load_hint(const float4* p, unsigned long long policy) {
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
    return v;
}

__device__ __forceinline__ void store_once(float4* p, float4 v) {
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
}

extern "C" __global__ void softmax_warp_shuffle(const float* x, float* y, int cols) {
    __shared__ float sh[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_reduce<true>(m, sh);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);  // -inf entries give 0
    s = block_reduce<false>(s, sh);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}

// Row layout: `head` scalars up to a 16-byte boundary, `body4` float4s, `tail` scalars (0..3 each).
// The head and tail scalars belong to chunk 0: thread t < head takes head scalar t, thread 4 + j takes tail scalar j.
struct RowSplit {
    long long base;
    int head, body4, tail;
};
__device__ __forceinline__ RowSplit row_split(long long r, int cols) {
    RowSplit rs;
    rs.base = r * (long long)cols;
    rs.head = (int)min((long long)cols, (4 - rs.base % 4) % 4);
    rs.body4 = (cols - rs.head) >> 2;
    rs.tail = cols - rs.head - 4 * rs.body4;
    return rs;
}
__device__ __forceinline__ bool extra_index(const RowSplit& rs, int t, long long& idx) {
    if (t < rs.head) { idx = rs.base + t; return true; }
    if (t >= 4 && t < 4 + rs.tail) { idx = rs.base + rs.head + 4LL * rs.body4 + (t - 4); return true; }
    return false;
}

// A row held once on chip: a cluster of ncl blocks, each stages its share of the row in dynamic shared memory.
extern "C" __global__ void __launch_bounds__(LARGE_BLOCK) softmax_cluster(const float* x, float* y, int cols) {
    extern __shared__ float4 buf[];
    __shared__ float sh[32];
    __shared__ float2 stat;
    const unsigned ncl = kevo_cluster_size(), rank = kevo_cluster_rank();
    const int t = threadIdx.x;
    const RowSplit rs = row_split((long long)(blockIdx.x / ncl), cols);
    const int per = (rs.body4 + (int)ncl - 1) / (int)ncl;
    const int beg = min(rs.body4, (int)rank * per);
    const int n4 = min(per, rs.body4 - beg);
    const float4* xv = reinterpret_cast<const float4*>(x + rs.base + rs.head) + beg;
    float4* yv = reinterpret_cast<float4*>(y + rs.base + rs.head) + beg;

    for (int i = t; i < n4; i += LARGE_BLOCK) kevo_cp_async16(&buf[i], xv + i, true);
    long long eidx = 0;
    const bool has_e = rank == 0 && extra_index(rs, t, eidx);
    const float ev = has_e ? x[eidx] : -KEVO_INF;
    kevo_cp_async_wait();
    __syncthreads();

    float m = ev;
    for (int i = t; i < n4; i += LARGE_BLOCK) m = fmaxf(m, max4(buf[i]));
    m = block_reduce<true>(m, sh);
    float s = 0.0f;
    if (m != -KEVO_INF) {  // block-uniform; a fully masked chunk contributes (−inf, 0)
        if (has_e) s = KEXP(ev - m);
        for (int i = t; i < n4; i += LARGE_BLOCK) {
            const float4 v = buf[i];
            s += KEXP(v.x - m) + KEXP(v.y - m) + KEXP(v.z - m) + KEXP(v.w - m);
        }
    }
    s = block_reduce<false>(s, sh);
    if (t == 0) stat = make_float2(m, s);
    kevo_cluster_sync();  // every block's (max, sum) is published

    const int lane = t & 31;
    float2 p = make_float2(-KEVO_INF, 0.0f);
    if (lane < (int)ncl) p = kevo_cluster_ld_f2(&stat, lane);
    const float M = kevo_warp_max(p.x);
    const float term = (p.x == -KEVO_INF) ? 0.0f : p.y * KEXP(p.x - M);
    const float S = kevo_warp_sum(term);
    kevo_cluster_arrive();  // done reading the peers

    const float inv = 1.0f / S;
    for (int i = t; i < n4; i += LARGE_BLOCK) {
        float4 v = buf[i];
        v.x = KEXP(v.x - M) * inv;
        v.y = KEXP(v.y - M) * inv;
        v.z = KEXP(v.z - M) * inv;
        v.w = KEXP(v.w - M) * inv;
        store_once(yv + i, v);
    }
    if (has_e) y[eidx] = KEXP(ev - M) * inv;
    kevo_cluster_wait();  // no peer still reads this block's stat
}

// Split path, launch 1: block (r, k) computes (max, sum) of chunk k of row r into ws[blockIdx.x].
extern "C" __global__ void __launch_bounds__(SPLIT_BLOCK) split_stats(const float* x, float2* ws, int cols, int split) {
    __shared__ float shm[32], shs[32];
    unsigned long long keep;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(keep));
    const int t = threadIdx.x;
    const int k = blockIdx.x % split;
    const RowSplit rs = row_split((long long)(blockIdx.x / split), cols);
    const int per = (rs.body4 + split - 1) / split;
    const int beg = min(rs.body4, k * per);
    const int n4 = min(per, rs.body4 - beg);
    const float4* xv = reinterpret_cast<const float4*>(x + rs.base + rs.head) + beg;

    float m = -KEVO_INF, s = 0.0f;
    long long eidx = 0;
    if (k == 0 && extra_index(rs, t, eidx)) {
        m = x[eidx];
        s = (m == -KEVO_INF) ? 0.0f : 1.0f;
    }
    for (int i0 = 0; i0 < n4; i0 += SPLIT_BLOCK * SPLIT_UNROLL) {
        float4 v[SPLIT_UNROLL];
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) {
            const int i = i0 + u * SPLIT_BLOCK + t;
            v[u] = i < n4 ? load_hint(xv + i, keep) : make_float4(-KEVO_INF, -KEVO_INF, -KEVO_INF, -KEVO_INF);
        }
        float bm = m;
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) bm = fmaxf(bm, max4(v[u]));
        if (bm != -KEVO_INF) {
            s *= KEXP(m - bm);  // m == -inf gives 0 (s is 0 then anyway)
#pragma unroll
            for (int u = 0; u < SPLIT_UNROLL; ++u)
                s += KEXP(v[u].x - bm) + KEXP(v[u].y - bm) + KEXP(v[u].z - bm) + KEXP(v[u].w - bm);
            m = bm;
        }
    }
    block_online(m, s, shm, shs);
    if (t == 0) ws[blockIdx.x] = make_float2(m, s);
}

// Split path, launch 2: one block per row merges its partials into (max, 1/sum) at ws[rows * split + r].
extern "C" __global__ void __launch_bounds__(256) split_combine(float2* ws, int split) {
    __shared__ float shm[32], shs[32];
    const long long r = blockIdx.x;
    const float2* part = ws + r * split;
    float m = -KEVO_INF, s = 0.0f;
    for (int j = threadIdx.x; j < split; j += blockDim.x) {
        const float2 p = part[j];
        kevo_online_merge(m, s, p.x, p.y);
    }
    block_online(m, s, shm, shs);
    if (threadIdx.x == 0) ws[(long long)gridDim.x * split + r] = make_float2(m, 1.0f / s);
}

// Split path, launch 3: normalise; blocks walk the chunks in reverse so the most recently read ones hit L2 first.
extern "C" __global__ void __launch_bounds__(SPLIT_BLOCK) split_norm(const float* x, float* y, const float2* ws, int cols,
                                                                   int split) {
    unsigned long long once;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(once));
    const int t = threadIdx.x;
    const unsigned bb = gridDim.x - 1 - blockIdx.x;
    const int k = bb % split;
    const long long r = bb / split;
    const RowSplit rs = row_split(r, cols);
    const float2 fin = ws[(long long)gridDim.x + r];  // gridDim.x == rows * split
    const float M = fin.x, inv = fin.y;
    const int per = (rs.body4 + split - 1) / split;
    const int beg = min(rs.body4, k * per);
    const int n4 = min(per, rs.body4 - beg);
    const float4* xv = reinterpret_cast<const float4*>(x + rs.base + rs.head) + beg;
    float4* yv = reinterpret_cast<float4*>(y + rs.base + rs.head) + beg;

    long long eidx = 0;
    if (k == 0 && extra_index(rs, t, eidx)) y[eidx] = KEXP(x[eidx] - M) * inv;
    for (int i0 = 0; i0 < n4; i0 += SPLIT_BLOCK * SPLIT_UNROLL) {
        float4 v[SPLIT_UNROLL];
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) {
            const int i = i0 + u * SPLIT_BLOCK + t;
            if (i < n4) v[u] = load_hint(xv + i, once);
        }
#pragma unroll
        for (int u = 0; u < SPLIT_UNROLL; ++u) {
            const int i = i0 + u * SPLIT_BLOCK + t;
            if (i < n4) {
                float4 o;
                o.x = KEXP(v[u].x - M) * inv;
                o.y = KEXP(v[u].y - M) * inv;
                o.z = KEXP(v[u].z - M) * inv;
                o.w = KEXP(v[u].w - M) * inv;
                store_once(yv + i, o);
            }
        }
    }
}
