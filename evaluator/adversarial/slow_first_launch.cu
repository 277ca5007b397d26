/*@kevo
{
  "description": "adversarial: seeds/online.cu that spends 20 ms in the first launch of each shape (what searching the inputs for the seed of the timed launches would cost), then computes honestly",
  "plans": [ { "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] } ]
}
*/
// @expect slow-when-checked
// why: the first launch of a shape is always a checked one, and untimed, so time spent there was free; each checked launch's wall time is now held against the same kernel's timed median on that shape (at most 10x it + 2 ms), and 20 ms is far past that on every shape.
#include "kevo.h"

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// Which row lengths have been launched before (by cols modulo 64: distinct for the suites' shapes that matter).
__device__ unsigned seen[64];

extern "C" __global__ void softmax_online(const float* x, float* y, int cols) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && atomicExch(&seen[cols % 64], 1u) == 0u) {
        const long long start = clock64();
        while (clock64() - start < 40000000LL) {  // about 20 ms at 2 GHz: the search a kernel would do here
        }
    }
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, xr[c]);

    // Block must be a multiple of 32 threads (full-mask shuffles). Every warp folds the
    // per-warp pairs, so all threads end with the row's (max, sum) without a broadcast.
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    const float inv = 1.0f / s;  // s >= 1: the row max contributes expf(0)
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
