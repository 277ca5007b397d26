/*@kevo
{
  "description": "adversarial: online softmax that stages each normalised tile in shared memory and never copies it out to y",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_staged", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_staged", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect unwritten-output
// why: no store to y is ever made, so every output keeps kevo's poison pattern 0x7FBADBAD.
#include "kevo.h"

extern "C" __global__ void softmax_staged(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    __shared__ float tile[1024];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;  // the row of y would start at y + off

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
    for (int base = 0; base < cols; base += blockDim.x) {
        const int c = base + threadIdx.x;
        if (c < cols) tile[threadIdx.x] = expf(xr[c] - m) * inv;
        __syncthreads();
        // The defect: the copy-out "if (c < cols) yr[c] = tile[threadIdx.x];" is missing.
        __syncthreads();
    }
}
