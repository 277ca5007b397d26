/*@kevo
{
  "description": "adversarial: online softmax (online.cu's plan) that counts its launches and stops writing y after the first 300",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_lazy", "grid": "rows", "block": 128, "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_lazy", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_lazy", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect timed-output-wrong
// why: the checked launches (one per shape and case, and a repeat of each suite shape: 216 on the standard suite with its four fresh shapes) are correct; timing makes at least 7 more launches per shape, so launch 300 comes during timing and from then on y is left as kevo left it, the poison. Whichever sees it first, a timed launch checked at random or the check after timing, finds outputs never written: skipped work, timed-output-wrong.
#include "kevo.h"

#define LAUNCHES_BEFORE_LAZY 300u
__device__ unsigned int launches;  // zero at module load

extern "C" __global__ void softmax_lazy(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    __shared__ unsigned int seen;
    if (threadIdx.x == 0) {
        // One thread per launch counts; every block reads the count so far.
        seen = blockIdx.x == 0 ? atomicAdd(&launches, 1u) : *(volatile unsigned int*)&launches;
    }
    __syncthreads();
    if (seen >= LAUNCHES_BEFORE_LAZY) return;  // the defect: fast during timing because it does nothing

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
