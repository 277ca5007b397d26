/*@kevo
{
  "description": "two-pass block-per-row softmax that skips its second read of a row whose answer is one-hot within 1e-7 (tracks the argmax in the first pass)",
  "plans": [ { "launches": [ { "kernel": "softmax_two_pass", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] } ]
}
*/
// @expect pass
// why: correct on every input within tolerance: it writes the one-hot answer only where every other output is below 1e-7; what matters is its time beside onehot_shortcut_off.cu, which never takes the shortcut: both go through one `kevo eval`, side by side (docs/reliability.md).
#include "kevo.h"
#define SHORTCUT 1

// (max, sum of exp(v - max), argmax) merged over the block; every thread gets the result.
__device__ __forceinline__ void merge(float& m, float& s, int& a, float m2, float s2, int a2) {
    const float mn = fmaxf(m, m2);
    if (mn == -KEVO_INF) return;
    s = (m == -KEVO_INF ? 0.0f : s * expf(m - mn)) + (m2 == -KEVO_INF ? 0.0f : s2 * expf(m2 - mn));
    a = m2 > m || (m2 == m && a2 < a) ? a2 : a;
    m = mn;
}

__device__ __forceinline__ void block_stats(float& m, float& s, int& a) {
    __shared__ float sm[32], ss[32];
    __shared__ int sa[32];
    for (int o = 16; o > 0; o >>= 1) {
        merge(m, s, a, __shfl_xor_sync(KEVO_FULL_MASK, m, o), __shfl_xor_sync(KEVO_FULL_MASK, s, o),
              __shfl_xor_sync(KEVO_FULL_MASK, a, o));
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; sa[warp] = a; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    a = live ? sa[lane] : 0x7fffffff;
    for (int o = 16; o > 0; o >>= 1) {
        merge(m, s, a, __shfl_xor_sync(KEVO_FULL_MASK, m, o), __shfl_xor_sync(KEVO_FULL_MASK, s, o),
              __shfl_xor_sync(KEVO_FULL_MASK, a, o));
    }
}

extern "C" __global__ void __launch_bounds__(1024) softmax_two_pass(const float* x, float* y, int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF, s = 0.0f;
    int a = 0x7fffffff;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        if (v > m) { s = (m == -KEVO_INF ? 0.0f : s * expf(m - v)) + 1.0f; m = v; a = c; }
        else if (v != -KEVO_INF) s += expf(v - m);
    }
    block_stats(m, s, a);
    const float inv = 1.0f / s;
#if SHORTCUT
    // Every other output is below s - 1: when that is under 1e-7, the answer is one-hot within kevo's tolerance, and
    // y can be written without reading x again.
    if (s - 1.0f < 1e-7f) {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = c == a ? inv : 0.0f;
        return;
    }
#endif
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
