/*@kevo
{
  "description": "adversarial: block-per-row online softmax that spins forever on rows of 50257 (GPT-2's vocabulary) only, as a grid barrier gone wrong would",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_hang", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_hang", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_hang", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
// @expect kernel-timeout
// why: every other shape is correct; the first checked launch of 32x50257 never ends. The worker told its supervisor that this launch may take 1 s + 100 x the baseline's launch on the shape (about 1 s on an H100), so the supervisor kills and replaces the worker seconds after it began, not at limits.check_s (120 s).
#include "kevo.h"

__device__ unsigned int released;  // zero at module load, never set

extern "C" __global__ void softmax_hang(const float* x, float* y, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    if (cols == 50257) {
        // The defect: waits for a release that nothing ever gives. The volatile read keeps the loop.
        while (*(volatile unsigned int*)&released == 0u) { }
    }

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
