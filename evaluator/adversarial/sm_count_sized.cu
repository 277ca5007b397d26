/*@kevo
{
  "description": "adversarial: a single long row split over one block per SM (grid from sms, two launches: partial (max, sum) per block, then combine and normalise), whose combine holds at most 132 partials, the H100's count; every other shape a block per row as seeds/online.cu",
  "workspace": "1024 * 8",
  "plans": [
    { "when": "rows == 1 && cols >= 65536",
      "launches": [ { "kernel": "split_stats", "grid": "min(sms, 1024)", "block": 256, "args": ["x", "ws", "cols"] },
                    { "kernel": "split_normalise", "grid": "min(sms, 1024)", "block": 256,
                      "args": ["x", "y", "ws", "cols"] } ] },
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 128, "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect wrong-result
// @eval --at-scale
// why: at 132 SMs (every suite, fresh and held-out shape) the grid is 132 blocks and the combine reads all their partials, so it passes; --at-scale now judges every plan again with sms at 108, 114, 148 and 188 (only the launches change): at 108 and 114 every partial fits and it is right, at 148 and 188 the partials of blocks 132 and up are dropped (16 of every 148, or 56 of every 188, grid-stride stretches of 256 columns), so the row sum misses 6-11% (22-30%) of the row: every output written and finite (the kept slices still hold a maximum within the dominant case's raise of 30 of the row's), wrong far past 1e-4 on normal-4 and every other case but causal, which is right only where its prefix ends before the dropped stretches.
#include "kevo.h"

// The defect: the combine's buffer is sized for the GPU the plan was written on, one partial per SM of the H100, and
// clamps the count so that it cannot overflow; the grid (sms blocks) is what the device running it has.
#define PARTS_MAX 132

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// The block's (max, sum) over blockDim.x threads' running pairs; every thread gets it.
__device__ __forceinline__ void block_online(float& m, float& s) {
    __shared__ float sm[32], ss[32];
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
}

// Launch 1: block b takes the grid-stride slice of the row that starts at b * blockDim.x (coalesced), and stores its
// (max, sum) as ws[b].
extern "C" __global__ void split_stats(const float* x, float2* ws, int cols) {
    float m = -KEVO_INF, s = 0.0f;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) online_add(m, s, x[c]);
    block_online(m, s);
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(m, s);
}

// Launch 2: every block merges the partials into the row's (max, sum), then normalises its own slice.
extern "C" __global__ void split_normalise(const float* x, float* y, const float2* ws, int cols) {
    __shared__ float2 parts[PARTS_MAX];
    __shared__ float row_m, row_s;
    const int n = min((int)gridDim.x, PARTS_MAX);  // the defect: partials past the 132nd are never read
    for (int i = threadIdx.x; i < n; i += blockDim.x) parts[i] = ws[i];
    __syncthreads();
    if (threadIdx.x < 32) {
        float m = -KEVO_INF, s = 0.0f;
        for (int i = threadIdx.x; i < n; i += 32) kevo_online_merge(m, s, parts[i].x, parts[i].y);
        kevo_warp_online(m, s);
        if (threadIdx.x == 0) { row_m = m; row_s = s; }
    }
    __syncthreads();
    const float m = row_m, inv = 1.0f / row_s;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) {
        y[c] = expf(x[c] - m) * inv;
    }
}

// seeds/online.cu's kernel for every other shape.
extern "C" __global__ void softmax_online(const float* x, float* y, int cols) {
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, xr[c]);
    block_online(m, s);
    const float inv = 1.0f / s;  // s >= 1: the row max contributes expf(0)
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
