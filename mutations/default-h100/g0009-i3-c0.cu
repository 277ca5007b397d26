/*@kevo
{
  "description": "adversarial: online softmax that also stores its row statistics through a pointer 4 TiB past y",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_stats", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_stats", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect illegal-address
// why: y + (1LL << 40) floats is 4 TiB beyond any allocation; the store faults in the MMU and the launch ends with CUDA_ERROR_ILLEGAL_ADDRESS (a sticky fault: the context is lost).
#include "kevo.h"

extern "C" __global__ void softmax_stats(const float* x, float* y, int cols) {
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

    // The defect: a "stats area after the output" that does not exist, 4 TiB past y.
    float* stats = y + (1LL << 40);
    if (threadIdx.x == 0) { stats[2 * blockIdx.x] = m; stats[2 * blockIdx.x + 1] = s; }

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
