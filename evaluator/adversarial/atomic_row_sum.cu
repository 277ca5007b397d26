/*@kevo
{
  "description": "block-per-row softmax whose row sum is accumulated with shared-memory atomicAdd, in whatever order the threads arrive",
  "plans": [ { "launches": [ { "kernel": "softmax_atomic_sum", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] } ]
}
*/
// @expect pass
// @deterministic false
// why: right within tolerance on every launch, so it passes; but float addition is not associative and the atomics' order changes from launch to launch, so two launches on one input write different bits: recorded as deterministic: false, and nondeterministic under launch_checks.require_deterministic.
#include "kevo.h"

extern "C" __global__ void softmax_atomic_sum(const float* x, float* y, int cols) {
    __shared__ float warp_max[32];
    __shared__ float row_max, row_sum;
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(KEVO_FULL_MASK, m, o));
    if (lane == 0) warp_max[warp] = m;
    if (threadIdx.x == 0) row_sum = 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float r = -KEVO_INF;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) r = fmaxf(r, warp_max[w]);
        row_max = r;
    }
    __syncthreads();
    m = row_max;

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    atomicAdd(&row_sum, s);  // one add per thread, in arrival order
    __syncthreads();
    const float inv = 1.0f / row_sum;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
