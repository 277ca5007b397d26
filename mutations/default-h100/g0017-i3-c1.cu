/*@kevo
{
  "description": "adversarial: online softmax behind a grid-wide arrival barrier whose target is one block too many, so the first launch spins forever",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_barrier", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect kernel-timeout
// why: every block waits for gridDim.x + 1 arrivals on a global counter; only gridDim.x ever arrive, so the first checked launch never ends and the supervisor's check-phase limit kills it.
#include "kevo.h"

__device__ unsigned int arrived;  // zero at module load

extern "C" __global__ void softmax_barrier(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    if (threadIdx.x == 0) {
        atomicAdd(&arrived, 1u);
        // The defect: waits for one block more than the grid has. The volatile read keeps the loop.
        while (*(volatile unsigned int*)&arrived < gridDim.x + 1u) { }
    }
    __syncthreads();

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
