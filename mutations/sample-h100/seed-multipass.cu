/*@kevo
{
  "description": "multipass: three launches (row max -> ws, row sum of exp -> ws, normalise), block per row",
  "workspace": "rows * 8",
  "knobs": {
    "SMALL_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "threads per row up to SMALL_MAX columns" },
    "MID_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 256, "about": "threads per row up to MID_MAX columns" },
    "LARGE_BLOCK": { "values": [128, 256, 512, 1024], "value": 1024, "about": "threads per row beyond" },
    "SMALL_MAX": { "values": [128, 256, 512, 1024, 2048], "value": 512 },
    "MID_MAX": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096 }
  },
  "knob_rule": "SMALL_MAX < MID_MAX",
  "plans": [
    { "when": "cols <= SMALL_MAX",
      "launches": [ { "kernel": "row_max", "grid": "rows", "block": "SMALL_BLOCK", "args": ["x", "ws", "rows", "cols"] },
                    { "kernel": "row_sum", "grid": "rows", "block": "SMALL_BLOCK", "args": ["x", "ws", "rows", "cols"] },
                    { "kernel": "normalise", "grid": "rows", "block": "SMALL_BLOCK", "args": ["x", "y", "ws", "rows", "cols"] } ] },
    { "when": "cols <= MID_MAX",
      "launches": [ { "kernel": "row_max", "grid": "rows", "block": "MID_BLOCK", "args": ["x", "ws", "rows", "cols"] },
                    { "kernel": "row_sum", "grid": "rows", "block": "MID_BLOCK", "args": ["x", "ws", "rows", "cols"] },
                    { "kernel": "normalise", "grid": "rows", "block": "MID_BLOCK", "args": ["x", "y", "ws", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "row_max", "grid": "rows", "block": "LARGE_BLOCK", "args": ["x", "ws", "rows", "cols"] },
                    { "kernel": "row_sum", "grid": "rows", "block": "LARGE_BLOCK", "args": ["x", "ws", "rows", "cols"] },
                    { "kernel": "normalise", "grid": "rows", "block": "LARGE_BLOCK", "args": ["x", "y", "ws", "rows", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// ws layout: rows floats of row maxima, then rows floats of row sums.
// Blocks must be a multiple of 32 threads (full-mask shuffles).
template <bool IsMax>
__device__ __forceinline__ float block_reduce(float v, float* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    // every warp folds the per-warp results, so all threads get the answer without a broadcast
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : (IsMax ? -KEVO_INF : 0.0f);
    return IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
}

extern "C" __global__ void row_max(const float* x, float* ws, int rows, int cols) {
    __shared__ float sh[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_reduce<true>(m, sh);
    if (threadIdx.x == 0) ws[blockIdx.x] = m;
}

extern "C" __global__ void row_sum(const float* x, float* ws, int rows, int cols) {
    __shared__ float sh[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    const float m = ws[blockIdx.x];  // finite: every row has a finite entry, so -inf entries give expf(-inf) = 0
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = block_reduce<false>(s, sh);
    if (threadIdx.x == 0) ws[rows + blockIdx.x] = s;
}

extern "C" __global__ void normalise(const float* x, float* y, const float* ws, int rows, int cols) {
    const size_t off = (size_t)blockIdx.x * cols;
    const float m = ws[blockIdx.x];
    const float inv = 1.0f / ws[rows + blockIdx.x];  // sum >= 1: the max element contributes expf(0)
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[off + c] = expf(x[off + c] - m) * inv;
}
