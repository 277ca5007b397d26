/*@kevo
{
  "description": "adversarial: block per row, each of 8 warps owns a contiguous eighth of the row, and the warps' (max, sum) pairs merge in a butterfly that does not guard two all -inf partials",
  "plans": [ { "launches": [ { "kernel": "softmax_warp_slices", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] } ]
}
*/
// @expect nan-output
// why: a causal mask leaves the last half of a row -inf, so warps 4-7 each hold nothing finite; merging two such partials takes expf(-inf - -inf) = NaN, which spreads to the whole row. Scattered -inf (the masked case) never empties a warp's slice.
#include "kevo.h"

// Adds one element to a running (max, sum); -inf is skipped inside a warp, so lanes are safe.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

extern "C" __global__ void softmax_warp_slices(const float* x, float* y, int cols) {
    __shared__ float sm[8], ss[8];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int per = (cols + 7) / 8;
    const int c0 = min(cols, warp * per), c1 = min(cols, c0 + per);

    float m = -KEVO_INF, s = 0.0f;
    for (int c = c0 + lane; c < c1; c += 32) online_add(m, s, xr[c]);
    kevo_warp_online(m, s);
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        m = lane < 8 ? sm[lane] : -KEVO_INF;
        s = lane < 8 ? ss[lane] : 0.0f;
        for (int o = 4; o > 0; o >>= 1) {
            const float m2 = __shfl_xor_sync(KEVO_FULL_MASK, m, o), s2 = __shfl_xor_sync(KEVO_FULL_MASK, s, o);
            const float mn = fmaxf(m, m2);
            s = s * expf(m - mn) + s2 * expf(m2 - mn);  // the defect: no guard for mn == -inf
            m = mn;
        }
        if (lane == 0) { sm[0] = m; ss[0] = s; }
    }
    __syncthreads();
    m = sm[0];
    const float inv = 1.0f / ss[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
