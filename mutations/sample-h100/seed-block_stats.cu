/*@kevo
{
  "description": "block stats: rows split into chunks over many blocks; per-block online (max, sum) partials, per-row merge, grid-stride normalise over all elements",
  "knobs": {
    "CHUNK": { "values": [512, 1024, 2048, 4096, 8192, 16384], "value": 2048, "about": "fewest elements per chunk" },
    "BLOCKS_PER_SM": { "values": [1, 2, 4, 8, 16], "value": 4, "about": "chunks a few long rows spread over, per SM" },
    "STATS_BLOCK": { "values": [64, 128, 256, 512, 1024], "value": 256, "about": "threads per chunk" },
    "NORM_BLOCK": { "values": [128, 256, 512, 1024], "value": 256, "about": "threads per block of the normalise pass" },
    "NORM_BLOCKS_PER_SM": { "values": [2, 4, 8, 16, 32], "value": 8, "about": "normalise blocks per SM (a grid-stride loop)" }
  },
  "knob_rule": "STATS_BLOCK <= CHUNK",
  "workspace": "rows * (max(1, min(cdiv(cols, CHUNK), cdiv(sms * BLOCKS_PER_SM, rows))) + 1) * 8",
  "plans": [
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

// chunks = chunks per row. The header picks it so that a few long rows still spread over
// about BLOCKS_PER_SM blocks per SM, with chunks of at least CHUNK elements so each block has real work.
// ws layout: rows * chunks float2 (max, sum) partials, then rows float2 (max, 1/sum).

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

extern "C" __global__ void chunk_stats(const float* x, float* ws, int cols, int chunks) {
    __shared__ float sm[32], ss[32];
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const int len = kevo_cdiv(cols, chunks);
    const int begin = k * len, end = min(cols, begin + len);  // the last chunk may be short or empty
    const float* xr = x + (size_t)row * cols;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = begin + threadIdx.x; c < end; c += blockDim.x) online_add(m, s, xr[c]);

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

extern "C" __global__ void normalise(const float* x, float* y, const float* ws, int rows, int cols, int chunks) {
    const float2* stats = reinterpret_cast<const float2*>(ws) + (size_t)rows * chunks;
    const size_t total = (size_t)rows * cols;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // Track (row, col) incrementally instead of dividing a 64-bit index by cols per element.
    int r = (int)(i / cols), c = (int)(i % cols);
    const int dr = (int)(stride / cols), dc = (int)(stride % cols);
    for (; i < total; i += stride) {
        const float2 st = stats[r];
        y[i] = expf(x[i] - st.x) * st.y;
        c += dc; r += dr;
        if (c >= cols) { c -= cols; ++r; }
    }
}
