/*@kevo
{
  "description": "adversarial: block-per-row softmax that accumulates each row's sum in the workspace with atomicAdd without zeroing it first",
  "workspace": "rows * 4",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_ws_sum", "grid": "rows", "block": 256, "args": ["x", "y", "ws", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_ws_sum", "grid": "rows", "block": 1024, "args": ["x", "y", "ws", "cols"] } ] }
  ]
}
*/
// @expect nan-output
// why: kevo fills the workspace with a quiet NaN (0x7FC0FFEE) before every checked launch; NaN + partial sums stays NaN, so every output is exp(x - max) * (1 / NaN) = NaN.
#include "kevo.h"

extern "C" __global__ void softmax_ws_sum(const float* x, float* y, float* ws, int cols) {
    __shared__ float sm[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = kevo_warp_max(m);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) sm[warp] = m;
    __syncthreads();
    m = kevo_warp_max(lane < (int)(blockDim.x >> 5) ? sm[lane] : -KEVO_INF);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = kevo_warp_sum(s);
    // The defect: ws[row] is assumed to start at zero; nothing clears it.
    if (lane == 0) atomicAdd(&ws[blockIdx.x], s);
    __syncthreads();

    const float inv = 1.0f / ws[blockIdx.x];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
