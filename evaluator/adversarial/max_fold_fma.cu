/*@kevo
{
  "description": "adversarial: seeds/online.cu with its write pass folded into one fma, exp2(x * log2e - max * log2e), the max scaled once per row",
  "plans": [ { "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] } ]
}
*/
// @expect nan-output
// why: on a row masked entirely with the lowest finite float (Hugging Face's finfo.min) the max is -3.4e38, and max * log2(e) overflows to -inf: every exponent becomes exp2(+inf), and the outputs inf, where torch gives 1/cols. Every other case keeps the product finite.
#include "kevo.h"

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

extern "C" __global__ void softmax_online(const float* x, float* y, int cols) {
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
    const float mk = __fmul_rn(m, KEVO_LOG2E);  // the defect: overflows when m < -FLT_MAX / log2(e)
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = exp2f(fmaf(xr[c], KEVO_LOG2E, -mk)) * inv;
}
