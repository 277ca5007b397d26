/*@kevo
{
  "description": "baseline: block per row (256 threads), pass 1 per-thread online (max, sum) and a block reduction, pass 2 reads x again and writes y",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_block_two_pass", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// In whichever dtype is judged: KEVO_X and KEVO_Y are x's and y's element types, the math is float throughout.
extern "C" __global__ void softmax_block_two_pass(const KEVO_X* x, KEVO_Y* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* xr = x + off;
    KEVO_Y* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));

    // Block must be a multiple of 32 threads (full-mask shuffles). Every warp folds the
    // per-warp pairs, so all threads end with the row's (max, sum) without a broadcast.
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31;
    if (lane == 0) { sm[threadIdx.x >> 5] = m; ss[threadIdx.x >> 5] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    const float inv = 1.0f / s;  // s >= 1: the row max contributes expf(0)
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        yr[c] = kevo_from_float<KEVO_Y>(expf(kevo_to_float(xr[c]) - m) * inv);
    }
}
