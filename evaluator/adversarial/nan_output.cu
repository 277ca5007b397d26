/*@kevo
{
  "description": "adversarial: online softmax whose first output of every row is overwritten by 0/0 computed at run time",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_nan", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_nan", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect nan-output
// why: (s - s) / (s - s) is 0/0 = NaN at run time (the canonical NaN 0x7FFFFFFF, not the poison pattern), so every row holds one NaN; all outputs are written.
#include "kevo.h"

extern "C" __global__ void softmax_nan(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
        else if (v != -KEVO_INF) s += expf(v - m);
    }
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
    __syncthreads();
    // The defect: a "renormalisation" of the first element whose numerator and denominator are both zero.
    const float residual = s - s;
    if (threadIdx.x == 0) yr[0] = residual / residual;
}
