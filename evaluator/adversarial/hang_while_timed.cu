/*@kevo
{
  "description": "adversarial: block-per-row online softmax, correct while checked, that spins forever from its 13th launch of 4096x4096 on, so it hangs only once timing has begun",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_hang_timed", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_hang_timed", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_hang_timed", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
// @expect kernel-timeout
// why: the 11 checked launches of 4096x4096 (launches 0-10: ten cases and the repeated launch) are honest and take tens of microseconds; launch 12, in the warm-up of timing, never ends. Before each synchronisation of timing the worker tells its supervisor how long the queued work may take, from the candidate's own slowest checked launch and the baseline's (1 s + 4 x per launch), so the worker is killed about a second later, not at limits.timing_s (240 s).
#include "kevo.h"

#define HANG_FROM 12u
__device__ unsigned int arrivals;  // blocks of 4096x4096 launches so far; zero at module load
__device__ unsigned int released;  // zero at module load, never set

extern "C" __global__ void softmax_hang_timed(const float* x, float* y, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    __shared__ unsigned int launch;
    if (rows == 4096 && cols == 4096) {
        if (threadIdx.x == 0) launch = atomicAdd(&arrivals, 1u) / gridDim.x;
        __syncthreads();
        // The defect: from launch 9 on, waits for a release that nothing ever gives.
        if (launch >= HANG_FROM) {
            while (*(volatile unsigned int*)&released == 0u) { }
        }
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
