/*@kevo
{
  "description": "adversarial: online.cu's plan for a kernel compiled with __launch_bounds__(256); the long-row plan launches 1024 threads",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_bounded", "grid": "rows", "block": 128, "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_bounded", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_bounded", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect resources-exceeded
// why: __launch_bounds__(256) makes the compiled kernel's maximum block 256 threads (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK); the third plan's block of 1024 exceeds it, and kevo rejects it when preparing the plans.
#include "kevo.h"

extern "C" __global__ void __launch_bounds__(256) softmax_bounded(const float* x, float* y, int cols) {
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
}
