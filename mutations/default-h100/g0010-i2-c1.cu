/*@kevo
{
  "description": "adversarial: correct online softmax whose last block also zeroes four floats of 'padding' after the end of y",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_padded", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_padded", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect out-of-bounds-write
// why: y[rows * cols .. rows * cols + 3] lie in the 64 KB guard zone kevo places right after y; the overwritten guard words are found before any output is compared.
#include "kevo.h"

extern "C" __global__ void softmax_padded(const float* x, float* y, int cols) {
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
    // The defect: assumes y is padded to a multiple of 4 floats past the last row (it is not).
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < 4) yr[cols + threadIdx.x] = 0.0f;
}
