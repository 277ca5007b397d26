/*@kevo
{
  "op": "softmax_backward",
  "description": "rows held on chip: y and dy read once into registers (16-byte loads, a scalar head and tail for unaligned rows) and, past a block's registers, shared memory (cp.async), sum(y * dy) reduced over the block and across a thread-block cluster in distributed shared memory, then y * (dy - dot) written from chip; a row per block of up to 512 threads to 512 * ELEMS columns, a row per cluster of up to CLUSTER_MAX blocks beyond; longer rows split over the GPU read twice",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "ELEMS": { "values": [8, 16], "value": 16, "about": "elements of y (and of dy) a thread holds in registers in the block plans" },
    "LONG_THREADS": { "values": [256, 512, 1024], "value": 256, "about": "threads per block of the cluster plans" },
    "LONG_REGS": { "values": [8, 16], "value": 16, "about": "elements of y (and of dy) a thread of the cluster kernel holds in registers" },
    "LONG_SMEM": { "values": [0, 8, 16, 24, 32, 48], "value": 48, "about": "elements of y (and of dy) a thread of the cluster kernel may hold in shared memory beyond its registers" },
    "SHARE": { "values": [8192, 16384, 24576, 32768], "value": 8192, "about": "columns a block of a cluster takes while 8 blocks hold the row; longer rows fill blocks to capacity" },
    "CLUSTER_MAX": { "values": [8, 16], "value": 16, "about": "most blocks a cluster may have (past 8 the size is non-portable)" },
    "CHUNK": { "values": [4096, 8192, 16384], "value": 4096, "about": "columns per block of a row longer than a cluster holds" }
  },
  "knob_rule": "SHARE <= LONG_THREADS * (LONG_REGS + LONG_SMEM) && LONG_THREADS * LONG_SMEM * 8 <= 229376",
  "workspace": "rows * cdiv(cols, CHUNK) * 4",
  "plans": [
    { "when": "cols <= 32 * ELEMS",
      "launches": [ { "kernel": "rows_32", "grid": "rows", "block": 32, "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "cols <= 64 * ELEMS",
      "launches": [ { "kernel": "rows_64", "grid": "rows", "block": 64, "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "cols <= 128 * ELEMS",
      "launches": [ { "kernel": "rows_128", "grid": "rows", "block": 128, "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "cols <= 256 * ELEMS",
      "launches": [ { "kernel": "rows_256", "grid": "rows", "block": 256, "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "cols <= 512 * ELEMS",
      "launches": [ { "kernel": "rows_512", "grid": "rows", "block": 512, "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "cols <= 8 * SHARE",
      "launches": [ { "kernel": "rows_long", "grid": "rows * cdiv(cols, SHARE)", "block": "LONG_THREADS", "cluster": "cdiv(cols, SHARE)",
                      "smem": "32 * LONG_THREADS * max(0, cdiv(cdiv(cdiv(cols, 4), cdiv(cols, SHARE)), LONG_THREADS) - LONG_REGS / 4)",
                      "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "cols <= CLUSTER_MAX * LONG_THREADS * (LONG_REGS + LONG_SMEM)",
      "launches": [ { "kernel": "rows_long", "grid": "rows * cdiv(cols, LONG_THREADS * (LONG_REGS + LONG_SMEM))", "block": "LONG_THREADS",
                      "cluster": "cdiv(cols, LONG_THREADS * (LONG_REGS + LONG_SMEM))",
                      "smem": "32 * LONG_THREADS * max(0, cdiv(cdiv(cdiv(cols, 4), cdiv(cols, LONG_THREADS * (LONG_REGS + LONG_SMEM))), LONG_THREADS) - LONG_REGS / 4)",
                      "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "chunk_dot", "grid": "rows * cdiv(cols, CHUNK)", "block": 256, "args": ["y", "dy", "ws", "cols", "CHUNK"] },
                    { "kernel": "chunk_write", "grid": "rows * cdiv(cols, CHUNK)", "block": 256, "args": ["y", "dy", "dx", "ws", "cols", "CHUNK"] } ] }
  ]
}
*/
#include "kevo.h"

// Elements of y and dy in one 16-byte access. dx's vector of as many elements is 16 or 32 bytes, and as aligned:
// a row's vectors start at an element index that is a multiple of VX, whatever dx's element size.
#define VX (16 / (int)sizeof(KEVO_X))

// Raw 16-byte words stay in registers and shared memory as loaded (a 16-bit word holds two elements), so a bf16 thread
// holds its elements in half the registers of a float one; they are unpacked to float where the math needs them.
template <class X> __device__ __forceinline__ void unpack(uint4 w, float* o) {
    if constexpr (sizeof(X) == 4) {
        o[0] = __uint_as_float(w.x); o[1] = __uint_as_float(w.y); o[2] = __uint_as_float(w.z); o[3] = __uint_as_float(w.w);
    } else {
        const unsigned u[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            o[2 * i] = kevo_to_float(X{(unsigned short)(u[i] & 0xffffu)});
            o[2 * i + 1] = kevo_to_float(X{(unsigned short)(u[i] >> 16)});
        }
    }
}

template <class Y> __device__ __forceinline__ void store_vec(Y* p, const float* v) {
    if constexpr (sizeof(Y) == 4) {
#pragma unroll
        for (int j = 0; j < VX / 4; ++j) {
            reinterpret_cast<float4*>(p)[j] = make_float4(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
        }
    } else {
        kevo_store8(p, v);
    }
}

// sum(y * dy) over one vector, pairwise so that the thread's chain of dependent adds stays short.
__device__ __forceinline__ float vec_dot(uint4 wy, uint4 wg) {
    float a[VX], b[VX];
    unpack<KEVO_X>(wy, a);
    unpack<KEVO_X>(wg, b);
#pragma unroll
    for (int e = 0; e < VX; ++e) a[e] *= b[e];
#pragma unroll
    for (int s = 1; s < VX; s <<= 1) {
#pragma unroll
        for (int e = 0; e < VX; e += 2 * s) a[e] += a[e + s];
    }
    return a[0];
}

// y * (dy - dot): where y is 0 (a masked entry, or one that underflowed) this is exactly 0.
__device__ __forceinline__ void vec_write(KEVO_Y* p, uint4 wy, uint4 wg, float dot) {
    float a[VX], b[VX];
    unpack<KEVO_X>(wy, a);
    unpack<KEVO_X>(wg, b);
#pragma unroll
    for (int e = 0; e < VX; ++e) a[e] = a[e] * (b[e] - dot);
    store_vec<KEVO_Y>(p, a);
}

// One row per block, or per thread-block cluster of blocks launched with "cluster": C. The row is seen as up to VX - 1
// scalar head elements (up to its first 16-byte-aligned element: rows start at row * cols), its aligned vectors, and
// up to VX - 1 tail elements. Block `rank` holds a contiguous share of the vectors: thread t the vectors
// v0 + t + k * T, the first NR in registers, the next up to NS in shared memory (cp.async, so they do not pass through
// registers, and only those this block's share reaches: the plan allocates that many slots and no more). The head
// and tail go to the first and last block. Each block reduces its part of sum(y * dy); the blocks of a cluster
// exchange their parts in distributed shared memory once; every element is then written from chip: y and dy are
// read once and dx written once.
template <int T, int NR, int NS>
__device__ __forceinline__ void held_rows(const KEVO_X* __restrict__ y, const KEVO_X* __restrict__ dy,
                                          KEVO_Y* __restrict__ dx, int cols) {
    extern __shared__ uint4 held[];
    __shared__ float partial[32];
    __shared__ float block_dot;
    const unsigned C = kevo_cluster_size(), rank = kevo_cluster_rank();
    const long long base = (long long)(blockIdx.x / C) * cols;
    const int head = min(cols, (int)((VX - (base & (VX - 1))) & (VX - 1)));
    const int nv = (cols - head) / VX, tail = cols - head - nv * VX;
    const int per = kevo_cdiv(nv, (int)C);
    const int v0 = (int)rank * per, v1 = min(v0 + per, nv);
    const uint4* yv = reinterpret_cast<const uint4*>(y + base + head);
    const uint4* gv = reinterpret_cast<const uint4*>(dy + base + head);
    KEVO_Y* dxv = dx + base + head;
    const int t = threadIdx.x;
    // dy's slots, then y's: as many a thread as the share needs beyond its registers (the same in every block).
    const int ks = NS > 0 ? max(0, kevo_cdiv(per, T) - NR) : 0;
    uint4* sg = held;
    uint4* sy = held + ks * T;
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        const int i = v0 + t + (NR + k) * T;
        if (i < v1) {
            kevo_cp_async16(&sy[k * T + t], yv + i, true);
            kevo_cp_async16(&sg[k * T + t], gv + i, true);
        }
    }
    uint4 ry[NR], rg[NR];
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);  // 0 in every element type: adds nothing to the dot product
#pragma unroll
    for (int k = 0; k < NR; ++k) {
        const int i = v0 + t + k * T;
        ry[k] = i < v1 ? yv[i] : zero;
        rg[k] = i < v1 ? gv[i] : zero;
    }
    const bool has_head = rank == 0 && t < head, has_tail = rank == C - 1 && t < tail;
    const long long tail_at = base + head + (long long)VX * nv + t;
    const float hy = has_head ? kevo_to_float(y[base + t]) : 0.0f, hg = has_head ? kevo_to_float(dy[base + t]) : 0.0f;
    const float ty = has_tail ? kevo_to_float(y[tail_at]) : 0.0f, tg = has_tail ? kevo_to_float(dy[tail_at]) : 0.0f;

    float dot = hy * hg + ty * tg;
#pragma unroll
    for (int k = 0; k < NR; ++k) dot += vec_dot(ry[k], rg[k]);
    if (NS > 0) {
        kevo_cp_async_wait();
#pragma unroll
        for (int k = 0; k < NS; ++k) {
            if (v0 + t + (NR + k) * T < v1) dot += vec_dot(sy[k * T + t], sg[k * T + t]);
        }
    }
    // Over the block: every warp folds the warps' sums in the same order, so every thread holds the same value.
    dot = kevo_warp_sum(dot);
    if ((t & 31) == 0) partial[t >> 5] = dot;
    __syncthreads();
    dot = kevo_warp_sum((t & 31) < T / 32 ? partial[t & 31] : 0.0f);
    if (C > 1) {
        if (t == 0) block_dot = dot;
        kevo_cluster_sync();  // every block's part is published
        dot = kevo_warp_sum((t & 31) < (int)C ? kevo_cluster_ld_f32(&block_dot, t & 31) : 0.0f);
        kevo_cluster_arrive();  // this block is done reading its peers' shared memory
    }

#pragma unroll
    for (int k = 0; k < NR; ++k) {
        const int i = v0 + t + k * T;
        if (i < v1) vec_write(dxv + (long long)i * VX, ry[k], rg[k], dot);
    }
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        const int i = v0 + t + (NR + k) * T;
        if (i < v1) vec_write(dxv + (long long)i * VX, sy[k * T + t], sg[k * T + t], dot);
    }
    if (has_head) dx[base + t] = kevo_from_float<KEVO_Y>(hy * (hg - dot));
    if (has_tail) dx[tail_at] = kevo_from_float<KEVO_Y>(ty * (tg - dot));
    if (C > 1) kevo_cluster_wait();  // peers may still be reading this block's part
}

// 64 registers a thread at most in every kernel: two blocks of 512 threads (or four of 256) fit an SM, so one block's
// loads overlap another's reduction and writes.
extern "C" __global__ void __launch_bounds__(32, 32) rows_32(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) { held_rows<32, ELEMS / VX, 0>(y, dy, dx, cols); }
extern "C" __global__ void __launch_bounds__(64, 16) rows_64(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) { held_rows<64, ELEMS / VX, 0>(y, dy, dx, cols); }
extern "C" __global__ void __launch_bounds__(128, 8) rows_128(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) { held_rows<128, ELEMS / VX, 0>(y, dy, dx, cols); }
extern "C" __global__ void __launch_bounds__(256, 4) rows_256(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) { held_rows<256, ELEMS / VX, 0>(y, dy, dx, cols); }
extern "C" __global__ void __launch_bounds__(512, 2) rows_512(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) { held_rows<512, ELEMS / VX, 0>(y, dy, dx, cols); }
extern "C" __global__ void __launch_bounds__(LONG_THREADS, 1024 / LONG_THREADS) rows_long(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) {
    held_rows<LONG_THREADS, LONG_REGS / VX, LONG_SMEM / VX>(y, dy, dx, cols);
}

__device__ __forceinline__ float block_sum(float v) {
    __shared__ float part[32];
    v = kevo_warp_sum(v);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    return kevo_warp_sum((threadIdx.x & 31) < (blockDim.x >> 5) ? part[threadIdx.x & 31] : 0.0f);
}

// Rows longer than a cluster holds (single rows of millions of columns): each block reduces one chunk's part of the
// dot product into ws, then each block of the second launch sums its row's parts in a fixed order and writes its
// chunk. y and dy are read twice; there are few such rows, and this spreads each over the GPU.
extern "C" __global__ void __launch_bounds__(256) chunk_dot(const KEVO_X* y, const KEVO_X* dy, float* ws, int cols, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / chunks;
    const int c0 = (int)(blockIdx.x % chunks) * chunk, c1 = min(c0 + chunk, cols);
    const KEVO_X* yr = y + row * cols;
    const KEVO_X* gr = dy + row * cols;
    float s = 0.0f;
    for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) s += kevo_to_float(yr[c]) * kevo_to_float(gr[c]);
    s = block_sum(s);
    if (threadIdx.x == 0) ws[blockIdx.x] = s;
}

extern "C" __global__ void __launch_bounds__(256) chunk_write(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, const float* ws,
                                                              int cols, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / chunks;
    const int c0 = (int)(blockIdx.x % chunks) * chunk, c1 = min(c0 + chunk, cols);
    float s = 0.0f;
    for (int j = threadIdx.x; j < chunks; j += blockDim.x) s += ws[row * chunks + j];
    const float dot = block_sum(s);
    const KEVO_X* yr = y + row * cols;
    const KEVO_X* gr = dy + row * cols;
    KEVO_Y* xr = dx + row * cols;
    for (int c = c0 + threadIdx.x; c < c1; c += blockDim.x) {
        const float p = kevo_to_float(yr[c]);
        xr[c] = kevo_from_float<KEVO_Y>(p * (kevo_to_float(gr[c]) - dot));
    }
}
