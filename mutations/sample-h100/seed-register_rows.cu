/*@kevo
{
  "description": "register rows: each element read once into registers (warp per row up to 1024 cols, block per row up to 16384), reduced, written once; longer rows use an online two-read block kernel, or past SPLIT_MIN columns block_stats' rows split over many blocks",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "WARPS": { "values": [1, 2, 4, 8, 16, 32], "value": 8, "about": "rows (one warp each) per block up to 1024 columns" },
    "BLOCK_N": { "values": [4, 8, 16], "value": 8, "about": "elements per thread of the block-per-row kernel, which serves rows up to 1024 * BLOCK_N" },
    "BLOCK_MIN": { "values": [32, 64, 128, 256, 512, 1024], "value": 256, "about": "fewest threads of a block-per-row launch" },
    "LONG_BLOCK": { "values": [128, 256, 512, 1024], "value": 1024, "about": "threads per row past 16384 columns" },
    "SPLIT_MIN": { "values": [16384, 32768, 65536, 131072, 262144, 1048576, 4194304, 16777216], "value": 16777216, "about": "rows longer than this are split over many blocks (block_stats' design); at 16777216 no suite shape is" },
    "CHUNK": { "values": [1024, 2048, 4096, 8192, 16384], "value": 2048, "about": "fewest elements per chunk of a split row" },
    "BLOCKS_PER_SM": { "values": [1, 2, 4, 8, 16], "value": 4, "about": "chunks a few split rows spread over, per SM" }
  },
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
    { "when": "cols <= 1024 * BLOCK_N",
      "launches": [ { "kernel": "softmax_block_n", "grid": "rows", "block": "min(1024, max(BLOCK_MIN, 32 * cdiv(cols, 32 * BLOCK_N)))", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 16384",
      "launches": [ { "kernel": "softmax_block16", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols > SPLIT_MIN",
      "launches": [ { "kernel": "chunk_stats", "grid": "rows * max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))", "block": 256,
                      "args": ["x", "ws", "cols", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] },
                    { "kernel": "merge_stats", "grid": "cdiv(rows, 8)", "block": 256,
                      "args": ["ws", "rows", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] },
                    { "kernel": "normalise", "grid": "min(cdiv(rows * cols, 256), sms * 8)", "block": 256,
                      "args": ["x", "y", "ws", "rows", "cols", "max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows)))"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online_long", "grid": "rows", "block": "LONG_BLOCK", "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"
// KEVO_X and KEVO_Y: x's and y's element types in the dtype judged; every value is float once read.

// Blocks are a multiple of 32 threads (full-mask shuffles). PerWarp reductions stay in the
// warp; otherwise the per-warp results meet in sh and every warp folds them, so all threads
// get the answer without a broadcast.
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

// Each thread keeps N elements of its row in v[]; the plan must guarantee
// cols <= N * 32 (PerWarp) or cols <= N * blockDim.x (block per row), or the rest goes unwritten.
// Every loop over v[] is fully unrolled so v[] is indexed by constants and stays in registers.
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

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// Rows too long for registers: one online pass for (max, sum), then a second read to write.
extern "C" __global__ void __launch_bounds__(LONG_BLOCK) softmax_online_long(const KEVO_X* x, KEVO_Y* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(x[off + c]));

    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31;
    if (lane == 0) { sm[threadIdx.x >> 5] = m; ss[threadIdx.x >> 5] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        y[off + c] = kevo_from_float<KEVO_Y>(expf(kevo_to_float(x[off + c]) - m) * inv);
    }
}

// Rows longer than SPLIT_MIN: block_stats' design. Each row is split into chunks (at least CHUNK elements, about
// BLOCKS_PER_SM blocks per SM for a few long rows); each block writes its chunk's online (max, sum) to ws, one warp
// per row merges them, and a grid-stride pass normalises. ws: rows * chunks float2 partials, then rows float2
// (max, 1/sum).
extern "C" __global__ void chunk_stats(const KEVO_X* x, float* ws, int cols, int chunks) {
    __shared__ float sm[32], ss[32];
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const int len = kevo_cdiv(cols, chunks);
    const int begin = k * len, end = min(cols, begin + len);  // the last chunk may be short or empty
    const KEVO_X* xr = x + (size_t)row * cols;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = begin + threadIdx.x; c < end; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));

    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        const bool live = lane < (int)(blockDim.x >> 5);
        m = live ? sm[lane] : -KEVO_INF;
        s = live ? ss[lane] : 0.0f;
        kevo_warp_online(m, s);
        if (lane == 0) reinterpret_cast<float2*>(ws)[blockIdx.x] = make_float2(m, s);
    }
}

// One warp per row folds that row's partials.
extern "C" __global__ void merge_stats(float* ws, int rows, int chunks) {
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;  // whole warp leaves together, so the shuffles below stay full-mask
    const float2* part = reinterpret_cast<const float2*>(ws) + row * chunks;
    float m = -KEVO_INF, s = 0.0f;
    for (int k = threadIdx.x & 31; k < chunks; k += 32) kevo_online_merge(m, s, part[k].x, part[k].y);
    kevo_warp_online(m, s);
    float2* stats = reinterpret_cast<float2*>(ws) + (size_t)rows * chunks;
    if ((threadIdx.x & 31) == 0) stats[row] = make_float2(m, 1.0f / s);  // s >= 1: the row max adds expf(0)
}

extern "C" __global__ void normalise(const KEVO_X* x, KEVO_Y* y, const float* ws, int rows, int cols, int chunks) {
    const float2* stats = reinterpret_cast<const float2*>(ws) + (size_t)rows * chunks;
    const size_t total = (size_t)rows * cols;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // Track (row, col) incrementally instead of dividing a 64-bit index by cols per element.
    int r = (int)(i / cols), c = (int)(i % cols);
    const int dr = (int)(stride / cols), dc = (int)(stride % cols);
    for (; i < total; i += stride) {
        const float2 st = stats[r];
        y[i] = kevo_from_float<KEVO_Y>(expf(kevo_to_float(x[i]) - st.x) * st.y);
        c += dc; r += dr;
        if (c >= cols) { c -= cols; ++r; }
    }
}
