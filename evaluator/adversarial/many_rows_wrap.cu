/*@kevo
{
  "description": "adversarial: seeds/online.cu's block per row, written for a 2-D grid of 65536 x cdiv(rows, 65536) blocks (row = blockIdx.y * 65536 + blockIdx.x % 65536) and launched as kevo's 1-D grid of rows blocks",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 128, "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect unwritten-output
// @eval --at-scale
// why: blockIdx.y is always 0 in a 1-D grid, so block b softmaxes row b % 65536: right wherever rows <= 65536, which holds for every suite shape (65536x128 the most) and every fresh one; --at-scale now draws held-out shapes with more rows than the suite's largest row count, and there blocks 65536 and up redo rows 0, 1, ... (writing the same values again) while rows 65536 and up are never written and keep kevo's poison.
#include "kevo.h"

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// The defect: the row index assumes at most 65536 blocks along x (a grid laid out for CUDA's 65535 limit on y).
extern "C" __global__ void softmax_online(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const unsigned row = blockIdx.y * 65536u + (blockIdx.x & 0xFFFFu);
    const size_t off = (size_t)row * cols;
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
