/*@kevo
{
  "description": "PLANTED DEFECT: computes exp(x) / sum exp(x) without subtracting the row max, so rows in [500, 1000] overflow to inf/inf = NaN and rows in [-1000, -500] underflow to 0/0 = NaN; small inputs come out right",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_no_max", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

extern "C" __global__ void softmax_no_max(const float* x, float* y, int cols) {
    __shared__ float sh[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c]);
    s = kevo_warp_sum(s);
    const int lane = threadIdx.x & 31;
    if (lane == 0) sh[threadIdx.x >> 5] = s;
    __syncthreads();
    s = kevo_warp_sum(lane < (int)(blockDim.x >> 5) ? sh[lane] : 0.0f);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c]) * inv;
}
