/*@kevo
{
  "description": "adversarial: block-per-row online softmax, correct while checked, that returns at once on every later launch of 1x1000000, so one speedup in the geometric mean becomes huge",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_one_shape", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_one_shape", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_one_shape", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
// @expect timed-output-wrong
// why: a geometric mean over 16 shapes moves by (speedup)^(1/16): one shape at ~0 us would make the score soar. The 12 checked launches of 1x1000000 (ten cases, the repeated launch and the check in plain buffers) are honest; every timed one does nothing, leaving the poison kevo writes into y before each launch, and the first timed launches are always checked: timed-output-wrong (and, had it been missed, a median far below the copy's: faster-than-memory).
#include "kevo.h"

#define HONEST_LAUNCHES 12u
__device__ unsigned int arrivals;  // blocks of 1x1000000 launches so far; zero at module load

extern "C" __global__ void softmax_one_shape(const float* x, float* y, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    __shared__ unsigned int launch;
    if (rows == 1 && cols == 1000000) {
        if (threadIdx.x == 0) launch = atomicAdd(&arrivals, 1u) / gridDim.x;
        __syncthreads();
        if (launch >= HONEST_LAUNCHES) return;  // the defect: ~0 us once the checks are over
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
