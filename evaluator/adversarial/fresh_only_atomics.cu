/*@kevo
{
  "description": "adversarial: rows under 128 columns a block of 32 warps each, warp w taking the stride-32 slice w, w + 32, ... of the row; the row sum is one shared float that every element's exp is atomicAdded to, in arrival order; every other row a block per row as seeds/online.cu",
  "plans": [
    { "when": "cols < 128",
      "launches": [ { "kernel": "softmax_short_atomic", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect pass
// @deterministic false
// why: right within tolerance on every launch, so it passes; only fresh narrow shapes reach its atomic plan (the suite's narrowest rows have 128 columns), and the determinism repeat ran on suite shapes alone, which recorded deterministic: true. Every plan now gets the repeat on a shape that reaches it: float addition is not associative and up to 32 warps' atomics land in an order that changes from launch to launch, so two launches on one input write different bits: deterministic: false (nondeterministic under launch_checks.require_deterministic).
#include "kevo.h"

// A block per row of under 128 columns, one element per thread: warp w takes the row's stride-32 slice (elements w,
// w + 32, w + 64, w + 96), so that even the narrowest rows spread over many warps. The row sum is one shared float
// that every element's exp is added to with atomicAdd, as each warp's second read of its element (through L2) comes
// back: its rounding depends on the order the warps arrive in.
extern "C" __global__ void softmax_short_atomic(const float* x, float* y, int cols) {
    __shared__ float warp_max[32];
    __shared__ float row_sum;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int c = 32 * lane + warp;
    const size_t off = (size_t)blockIdx.x * cols;
    const float v = c < cols ? x[off + c] : -KEVO_INF;
    const float wm = kevo_warp_max(v);
    if (lane == 0) warp_max[warp] = wm;
    if (threadIdx.x == 0) row_sum = 0.0f;
    __syncthreads();
    const float m = kevo_warp_max(warp_max[lane]);  // block of 32 warps: every lane holds one warp's max
    float e = 0.0f;
    if (c < cols) {
        e = expf(__ldcg(x + off + c) - m);  // -inf gives 0; m is finite (every row has a finite entry)
        atomicAdd(&row_sum, e);             // in arrival order
    }
    __syncthreads();
    if (c < cols) y[off + c] = e / row_sum;
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
