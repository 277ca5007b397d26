/*@kevo
{
  "description": "adversarial: rows under 128 columns a warp each, staged through a 128-column shared tile that is always loaded whole (the columns past the row masked out afterwards); every other row a block per row as seeds/online.cu",
  "plans": [
    { "when": "cols < 128",
      "launches": [ { "kernel": "softmax_tile128", "grid": "cdiv(rows, 8)", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect memory-error
// @eval --sanitize
// why: no suite shape reaches the short-row plan (the suite's narrowest rows have 128 columns), so the sanitizer once ran only the other plans; it now runs each plan on the smallest shape that reaches it, fresh ones included, and a second with odd columns: there the last row's tile load reads up to 127 floats past the end of x, which is allocated at exactly its size, and memcheck reports it. Without --sanitize it passes: the over-read lands in the next row or in the guard zone behind x, and every column past the row is masked to -inf before use.
#include "kevo.h"

#define TILE 128  // columns a warp stages per row

// A warp per row, 8 rows per block. The row goes through shared memory so that each lane can take 4 consecutive
// columns in one 16-byte read (rows are not 16-byte aligned in global memory). The defect: the coalesced load fills
// the whole 128-column tile whatever the row's length, reading past the row (and, for the last row, past x).
extern "C" __global__ void softmax_tile128(const float* x, float* y, int rows, int cols) {
    __shared__ __align__(16) float tile[8][TILE];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int row = blockIdx.x * 8 + warp;
    const float* xr = x + (size_t)row * cols;
    if (row < rows) {
#pragma unroll
        for (int k = 0; k < TILE / 32; ++k) tile[warp][lane + 32 * k] = xr[lane + 32 * k];
    }
    __syncthreads();
    if (row >= rows) return;  // the whole warp leaves together, so the shuffles below stay full-mask

    const float4 q = reinterpret_cast<const float4*>(tile[warp])[lane];
    float v[4] = {q.x, q.y, q.z, q.w};
    float m = -KEVO_INF;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        if (4 * lane + k >= cols) v[k] = -KEVO_INF;  // what the tile holds past the row never counts
        m = fmaxf(m, v[k]);
    }
    m = kevo_warp_max(m);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) s += expf(v[k] - m);  // -inf gives 0; m is finite (every row has a finite entry)
    const float inv = 1.0f / kevo_warp_sum(s);
    float* yr = y + (size_t)row * cols;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        if (4 * lane + k < cols) yr[4 * lane + k] = expf(v[k] - m) * inv;
    }
}

// seeds/online.cu's kernel for rows of 128 columns and more.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

extern "C" __global__ void softmax_online(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, xr[c]);
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    const float inv = 1.0f / s;  // s >= 1: the row max contributes expf(0)
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
