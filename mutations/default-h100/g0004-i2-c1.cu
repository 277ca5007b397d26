/*@kevo
{
  "description": "adversarial: block-per-row softmax computing exp(x) / sum exp(x) without subtracting the row max",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_nomax", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_nomax", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect nan-output
// why: on the uniform-500-1000 case expf(x) overflows to +inf (above 88.7), so the sum is inf and y = inf * (1/inf) = inf * 0 = NaN; the normal cases before it pass.
#include "kevo.h"

extern "C" __global__ void softmax_nomax(const float* x, float* y, int cols) {
    __shared__ float ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    // The defect: exp(x) instead of exp(x - max).
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c]);
    s = kevo_warp_sum(s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) ss[warp] = s;
    __syncthreads();
    s = lane < (int)(blockDim.x >> 5) ? ss[lane] : 0.0f;
    s = kevo_warp_sum(s);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c]) * inv;
}
