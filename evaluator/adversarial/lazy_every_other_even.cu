/*@kevo
{
  "description": "adversarial: block-per-row online softmax that, from its 13th launch of 4096x4096 on, returns without working on every even-numbered launch",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_lazy_even", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_lazy_even", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_lazy_even", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
// @expect timed-output-wrong
// why: the 11 checked launches of 4096x4096 (ten cases and the repeated launch) are launches 0-10, all honest; from launch 12 on every other launch (the even ones) leaves y as kevo left it, the poison, so its median halves. Which timed launches kevo checks is drawn at random from the input seed (the first 12 always), so a skipped one is checked and its output found unwritten, whichever parity skips: timed-output-wrong. Its pair is lazy_every_other_odd.cu.
#include "kevo.h"

#define LAZY_FROM 12u
#define SKIP_PARITY 0u
__device__ unsigned int arrivals;  // blocks of 4096x4096 launches so far; zero at module load

extern "C" __global__ void softmax_lazy_even(const float* x, float* y, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    __shared__ unsigned int launch;
    if (rows == 4096 && cols == 4096) {
        // Every block of a launch arrives once, and launches on one stream do not overlap, so arrivals / gridDim.x
        // is this launch's number in every block alike.
        if (threadIdx.x == 0) launch = atomicAdd(&arrivals, 1u) / gridDim.x;
        __syncthreads();
        if (launch >= LAZY_FROM && launch % 2u == SKIP_PARITY) return;  // the defect
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
