/*@kevo
{
  "description": "PLANTED DEFECT: the plan launches max(1, rows - 1) blocks of a block-per-row kernel, so when rows > 1 the last row is never written (the kernel itself is right)",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_rows", "grid": "max(1, rows - 1)", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

extern "C" __global__ void softmax_rows(const float* x, float* y, int cols) {
    __shared__ float sh[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;
    const int lane = threadIdx.x & 31;
    const bool live = lane < (int)(blockDim.x >> 5);

    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = kevo_warp_max(m);
    if (lane == 0) sh[threadIdx.x >> 5] = m;
    __syncthreads();
    m = kevo_warp_max(live ? sh[lane] : -KEVO_INF);
    __syncthreads();  // sh is reused for the sum

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = kevo_warp_sum(s);
    if (lane == 0) sh[threadIdx.x >> 5] = s;
    __syncthreads();
    s = kevo_warp_sum(live ? sh[lane] : 0.0f);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
