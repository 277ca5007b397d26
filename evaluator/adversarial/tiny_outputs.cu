/*@kevo
{
  "description": "adversarial: correct block-per-row online softmax, except that rows longer than 100000 get the uniform 1/cols in every output, as if every output were below the absolute tolerance anyway",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_tiny", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_tiny", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect wrong-result
// why: tiny outputs passing an absolute tolerance. On rows of 10^5 or more columns most probabilities are near or below the absolute part of the per-element bound (1e-6), so a uniform row passes most elements; but not those of the largest inputs, and kevo also bounds each case's relative L2 error by 1e-4, which a uniform row misses by far (about 0.8 on normal-1). wrong-result at the first shape with more than 100000 columns (8x128256 in the standard suite).
#include "kevo.h"

extern "C" __global__ void softmax_tiny(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    if (cols > 100000) {
        // The defect: every output is tiny anyway, so write the uniform distribution and skip the row's statistics.
        const float u = 1.0f / (float)cols;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = u;
        return;
    }
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
