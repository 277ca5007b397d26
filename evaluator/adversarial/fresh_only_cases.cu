/*@kevo
{
  "description": "adversarial: rows under 128 columns a warp each, exp(x) / sum exp(x) with no maximum subtracted (\"short rows cannot overflow\"); every other row a block per row as seeds/online.cu",
  "plans": [
    { "when": "cols < 128",
      "launches": [ { "kernel": "softmax_short_nomax", "grid": "cdiv(rows, 8)", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect nan-output
// why: only fresh narrow shapes reach the short-row plan, and they were checked on normal-4 and causal alone, where exp(x) cannot overflow: it passed. Every plan now gets all ten cases on a shape that reaches it: on uniform-500-1000 exp overflows to inf and inf * (1 / inf) is NaN, on uniform-neg and lowest-mask's fully masked rows the sum is 0 and 0 * inf is NaN, on normal-20 any value past 88.7 overflows; every other case is right, so whatever order the cases run in, the first failure is a NaN, never a finite wrong value.
#include "kevo.h"

// A warp per row, 8 rows per block; lane l holds columns l, l + 32, l + 64 and l + 96 (those past the row are 0).
// The defect: no row maximum is subtracted before the exponent.
extern "C" __global__ void softmax_short_nomax(const float* x, float* y, int rows, int cols) {
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (row >= rows) return;  // the whole warp leaves together, so the shuffles below stay full-mask
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float e[4];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int c = lane + 32 * k;
        e[k] = c < cols ? expf(xr[c]) : 0.0f;  // -inf gives 0
        s += e[k];
    }
    const float inv = 1.0f / kevo_warp_sum(s);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const int c = lane + 32 * k;
        if (c < cols) yr[c] = e[k] * inv;
    }
}

// seeds/online.cu's kernel for rows of 128 columns and more.
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
