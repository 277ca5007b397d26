/*@kevo
{
  "op": "cross_entropy_sum",
  "description": "rows held on chip (the sum: no count of the live rows): x read once into registers (16-byte loads, a scalar head and tail for unaligned rows) and, past a block's registers, shared memory (cp.async); the row's (max, sum of exp) over the block and across a thread-block cluster in distributed shared memory, then g (p - onehot) written from chip, each row's loss into the workspace and summed in a fixed order by one block; a row per block of up to 512 threads to 512 * ELEMS columns, a row per cluster of up to 8 blocks beyond (SHARE columns a block, then blocks filled to capacity); longer rows read twice by a block each",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "ELEMS": { "values": [8, 16, 32], "value": 16, "about": "elements of x a thread holds in registers in the block plans" },
    "LONG_THREADS": { "values": [256, 512, 1024], "value": 512, "about": "threads per block of the cluster plan" },
    "LONG_REGS": { "values": [8, 16, 32], "value": 16, "about": "elements of x a thread of the cluster kernel holds in registers" },
    "LONG_SMEM": { "values": [0, 16, 32, 48, 64, 96], "value": 48, "about": "elements of x a thread of the cluster kernel may hold in shared memory beyond its registers" },
    "SHARE": { "values": [8192, 16384, 32768], "value": 16384, "about": "columns a block of a cluster takes while 8 blocks hold the row; longer rows fill blocks to capacity" }
  },
  "knob_rule": "SHARE <= LONG_THREADS * (LONG_REGS + LONG_SMEM) && LONG_THREADS * LONG_SMEM * 4 <= 229376",
  "workspace": "rows * 4",
  "plans": [
    { "when": "cols <= 128 * ELEMS",
      "launches": [ { "kernel": "rows_128", "grid": "rows", "block": 128, "args": ["x", "labels", "dx", "ws", "g", "rows", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 1024, "args": ["ws", "loss", "rows"] } ] },
    { "when": "cols <= 512 * ELEMS",
      "launches": [ { "kernel": "rows_512", "grid": "rows", "block": 512, "args": ["x", "labels", "dx", "ws", "g", "rows", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 1024, "args": ["ws", "loss", "rows"] } ] },
    { "when": "cols <= 8 * SHARE",
      "launches": [ { "kernel": "rows_long", "grid": "rows * cdiv(cols, SHARE)", "block": "LONG_THREADS", "cluster": "cdiv(cols, SHARE)",
                      "smem": "16 * LONG_THREADS * max(0, cdiv(cdiv(cdiv(cols, 4), cdiv(cols, SHARE)), LONG_THREADS) - LONG_REGS / 4)",
                      "args": ["x", "labels", "dx", "ws", "g", "rows", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 1024, "args": ["ws", "loss", "rows"] } ] },
    { "when": "cols <= 8 * LONG_THREADS * (LONG_REGS + LONG_SMEM)",
      "launches": [ { "kernel": "rows_long", "grid": "rows * cdiv(cols, LONG_THREADS * (LONG_REGS + LONG_SMEM))", "block": "LONG_THREADS",
                      "cluster": "cdiv(cols, LONG_THREADS * (LONG_REGS + LONG_SMEM))",
                      "smem": "16 * LONG_THREADS * max(0, cdiv(cdiv(cdiv(cols, 4), cdiv(cols, LONG_THREADS * (LONG_REGS + LONG_SMEM))), LONG_THREADS) - LONG_REGS / 4)",
                      "args": ["x", "labels", "dx", "ws", "g", "rows", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 1024, "args": ["ws", "loss", "rows"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "ce_online", "grid": "rows", "block": 1024, "args": ["x", "labels", "dx", "ws", "g", "rows", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 1024, "args": ["ws", "loss", "rows"] } ] }
  ]
}
*/
#include "kevo.h"

#define IGNORE_INDEX (-100ll)

// The workspace: each row's loss at ws[r] (0 for an ignored row). Every launch of the plan writes what it reads: the
// workspace holds nothing from an earlier one.

// Elements of x in one 16-byte access; dx's vector of as many elements is 16 or 32 bytes, and as aligned: a row's
// vectors start at an element index that is a multiple of VX, whatever dx's element size.
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

__device__ __forceinline__ float vec_max(uint4 w, float m) {
    float a[VX];
    unpack<KEVO_X>(w, a);
#pragma unroll
    for (int e = 0; e < VX; ++e) m = fmaxf(m, a[e]);
    return m;
}

// sum of exp(x - m) over one vector; -inf entries (masked) give expf(-inf) = 0. m is finite: the row holds at least
// one finite value (the maximum this sum is taken from), and a vector of padding is skipped by its caller.
__device__ __forceinline__ float vec_sum(uint4 w, float m) {
    float a[VX];
    unpack<KEVO_X>(w, a);
    float s = 0.0f;
#pragma unroll
    for (int e = 0; e < VX; ++e) s += expf(a[e] - m);
    return s;
}

// per (p - onehot) over one vector whose first element is column `col`; p = exp((x - m) - log(s)), never
// exp(x - (m + log(s))): m + log(s) absorbs log(s) where m is huge (a row masked throughout with the lowest value).
__device__ __forceinline__ void vec_write(KEVO_Y* p, uint4 w, float m, float log_s, float per, long long label,
                                          long long col) {
    float a[VX];
    unpack<KEVO_X>(w, a);
#pragma unroll
    for (int e = 0; e < VX; ++e) {
        const float q = expf((a[e] - m) - log_s);
        a[e] = per * (col + e == label ? q - 1.0f : q);
    }
    store_vec<KEVO_Y>(p, a);
}

// A block-wide reduction with op over a multiple of 32 threads; every thread gets it. `part` holds 32 floats.
template <bool MAX> __device__ __forceinline__ float block_reduce(float v, float* part) {
    for (int o = 16; o > 0; o >>= 1) {
        const float u = __shfl_xor_sync(KEVO_FULL_MASK, v, o);
        v = MAX ? fmaxf(v, u) : v + u;
    }
    __syncthreads();  // part may still be read from the previous reduction
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    v = (threadIdx.x & 31) < (int)(blockDim.x >> 5) ? part[threadIdx.x & 31] : (MAX ? -KEVO_INF : 0.0f);
    for (int o = 16; o > 0; o >>= 1) {
        const float u = __shfl_xor_sync(KEVO_FULL_MASK, v, o);
        v = MAX ? fmaxf(v, u) : v + u;
    }
    return v;
}

// One row per block, or per thread-block cluster of C blocks. The row is seen as up to VX - 1 scalar head elements (up
// to its first 16-byte-aligned element: rows start at row * cols), its aligned vectors, and up to VX - 1 tail
// elements. Block `rank` holds a contiguous share of the vectors: thread t the vectors v0 + t + k * T, the first NR in
// registers, the next up to NS in shared memory (cp.async). Each block finds its part's maximum and sum of
// exponentials; a cluster's blocks exchange their (max, sum) pairs in distributed shared memory once and merge them;
// every element is then written from chip: x is read once and dx written once.
template <int T, int NR, int NS>
__device__ __forceinline__ void held_rows(const KEVO_X* __restrict__ x, const long long* __restrict__ labels,
                                          KEVO_Y* __restrict__ dx, float* __restrict__ ws, float g, int rows,
                                          int cols) {
    extern __shared__ uint4 held[];
    __shared__ float part[32];
    __shared__ float2 block_ms;
    const unsigned C = kevo_cluster_size(), rank = kevo_cluster_rank();
    const long long row = blockIdx.x / C;
    const long long base = row * cols;
    const int head = min(cols, (int)((VX - (base & (VX - 1))) & (VX - 1)));
    const int nv = (cols - head) / VX, tail = cols - head - nv * VX;
    const int share = kevo_cdiv(nv, (int)C);
    const int v0 = (int)rank * share, v1 = min(v0 + share, nv);
    const uint4* xv = reinterpret_cast<const uint4*>(x + base + head);
    KEVO_Y* dxv = dx + base + head;
    const int t = threadIdx.x;
    const long long label = labels[row];
    const bool has_head = rank == 0 && t < head, has_tail = rank == C - 1 && t < tail;
    const long long tail_at = base + head + (long long)VX * nv + t;
    if (label == IGNORE_INDEX) {  // the same branch in every block of the cluster: no cluster barrier is skipped alone
        float zero[VX] = {};
        for (int i = v0 + t; i < v1; i += T) store_vec<KEVO_Y>(dxv + (long long)i * VX, zero);
        if (has_head) dx[base + t] = kevo_from_float<KEVO_Y>(0.0f);
        if (has_tail) dx[tail_at] = kevo_from_float<KEVO_Y>(0.0f);
        if (rank == 0 && t == 0) ws[row] = 0.0f;
        return;
    }
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        const int i = v0 + t + (NR + k) * T;
        if (i < v1) kevo_cp_async16(&held[k * T + t], xv + i, true);
    }
    uint4 rx[NR];
#pragma unroll
    for (int k = 0; k < NR; ++k) {
        const int i = v0 + t + k * T;
        rx[k] = i < v1 ? xv[i] : make_uint4(0u, 0u, 0u, 0u);
    }
    const float hx = has_head ? kevo_to_float(x[base + t]) : -KEVO_INF;
    const float tx = has_tail ? kevo_to_float(x[tail_at]) : -KEVO_INF;

    float m = fmaxf(hx, tx);
#pragma unroll
    for (int k = 0; k < NR; ++k) {
        if (v0 + t + k * T < v1) m = vec_max(rx[k], m);
    }
    if (NS > 0) kevo_cp_async_wait();
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        if (v0 + t + (NR + k) * T < v1) m = vec_max(held[k * T + t], m);
    }
    m = block_reduce<true>(m, part);
    // A block whose share holds nothing finite (a run of -inf in a masked row) keeps m = -inf and s = 0: the
    // cluster's merge weighs it out. Within a block every element is taken against the block's own maximum.
    float s = 0.0f;
    if (m != -KEVO_INF) {
        s = (has_head ? expf(hx - m) : 0.0f) + (has_tail ? expf(tx - m) : 0.0f);
#pragma unroll
        for (int k = 0; k < NR; ++k) {
            if (v0 + t + k * T < v1) s += vec_sum(rx[k], m);
        }
#pragma unroll
        for (int k = 0; k < NS; ++k) {
            if (v0 + t + (NR + k) * T < v1) s += vec_sum(held[k * T + t], m);
        }
    }
    s = block_reduce<false>(s, part);
    if (C > 1) {
        if (t == 0) block_ms = make_float2(m, s);
        kevo_cluster_sync();  // every block's pair is published
        float mm = -KEVO_INF, ss = 0.0f;
        for (unsigned b = 0; b < C; ++b) {
            const float2 p = kevo_cluster_ld_f2(&block_ms, b);
            kevo_online_merge(mm, ss, p.x, p.y);
        }
        m = mm;
        s = ss;
        kevo_cluster_arrive();  // this block is done reading its peers' shared memory
    }
    const float log_s = logf(s);  // s >= 1: the row's maximum contributes expf(0)
    const float per = g;  // the sum: no row's dx depends on how many are live
    const long long first = head;  // the column of vector 0
#pragma unroll
    for (int k = 0; k < NR; ++k) {
        const int i = v0 + t + k * T;
        if (i < v1) vec_write(dxv + (long long)i * VX, rx[k], m, log_s, per, label, first + (long long)i * VX);
    }
#pragma unroll
    for (int k = 0; k < NS; ++k) {
        const int i = v0 + t + (NR + k) * T;
        if (i < v1) vec_write(dxv + (long long)i * VX, held[k * T + t], m, log_s, per, label, first + (long long)i * VX);
    }
    if (has_head) {
        const float q = expf((hx - m) - log_s);
        dx[base + t] = kevo_from_float<KEVO_Y>(per * (t == label ? q - 1.0f : q));
    }
    if (has_tail) {
        const float q = expf((tx - m) - log_s);
        dx[tail_at] = kevo_from_float<KEVO_Y>(per * (tail_at - base == label ? q - 1.0f : q));
    }
    if (rank == 0 && t == 0) ws[row] = (m - kevo_to_float(x[base + label])) + log_s;
    if (C > 1) kevo_cluster_wait();  // peers may still be reading this block's pair
}

extern "C" __global__ void __launch_bounds__(128, 8) rows_128(const KEVO_X* x, const long long* labels, KEVO_Y* dx, float* ws, float g, int rows, int cols) {
    held_rows<128, ELEMS / VX, 0>(x, labels, dx, ws, g, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512, 2) rows_512(const KEVO_X* x, const long long* labels, KEVO_Y* dx, float* ws, float g, int rows, int cols) {
    held_rows<512, ELEMS / VX, 0>(x, labels, dx, ws, g, rows, cols);
}
extern "C" __global__ void __launch_bounds__(LONG_THREADS, 1024 / LONG_THREADS) rows_long(const KEVO_X* x, const long long* labels, KEVO_Y* dx, float* ws, float g, int rows, int cols) {
    held_rows<LONG_THREADS, LONG_REGS / VX, LONG_SMEM / VX>(x, labels, dx, ws, g, rows, cols);
}

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// Rows longer than a cluster holds: a block a row, x read twice.
extern "C" __global__ void __launch_bounds__(1024) ce_online(const KEVO_X* x, const long long* labels, KEVO_Y* dx, float* ws,
                                                              float g, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* xr = x + off;
    KEVO_Y* dr = dx + off;
    const long long label = labels[blockIdx.x];
    if (label == IGNORE_INDEX) {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) dr[c] = kevo_from_float<KEVO_Y>(0.0f);
        if (threadIdx.x == 0) ws[blockIdx.x] = 0.0f;
        return;
    }
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
    const float log_s = logf(s);
    const float per = g;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float q = expf((kevo_to_float(xr[c]) - m) - log_s);
        dr[c] = kevo_from_float<KEVO_Y>(per * (c == label ? q - 1.0f : q));
    }
    if (threadIdx.x == 0) ws[blockIdx.x] = (m - kevo_to_float(xr[label])) + log_s;
}

// The sum of the rows' losses, in a fixed order: 0 where no row is live, as torch gives.
extern "C" __global__ void ce_finish(const float* ws, float* loss, int rows) {
    __shared__ float part[1024];
    float s = 0.0f;
    for (int r = threadIdx.x; r < rows; r += blockDim.x) s += ws[r];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) loss[0] = part[0];
}
