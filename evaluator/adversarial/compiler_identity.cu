/*@kevo
{
  "description": "two-pass block-per-row softmax that subtracts the row maximum only when NVRTC compiles it: the nvcc build of an export writes NaN for rows in [500, 1000]",
  "plans": [
    { "launches": [ { "kernel": "softmax_two_pass", "grid": "rows", "block": 512, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect source-rejected
// why: it tests __CUDACC_RTC__, which NVRTC defines and nvcc does not: kevo would judge one program and export another, so the source rules refuse it before it compiles
#include "kevo.h"

// Under NVRTC (kevo's judge) the maximum is subtracted; under nvcc (the exported package) it is skipped, so expf
// overflows to inf on large inputs and inf / inf is NaN.
#ifdef __CUDACC_RTC__
#define SHIFT(m) (m)
#else
#define SHIFT(m) 0.0f
#endif

__device__ float block_reduce(float v, bool take_max, float* scratch) {
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = take_max ? fmaxf(v, w) : v + w;
    }
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x >> 5) ? scratch[threadIdx.x] : (take_max ? -KEVO_INF : 0.0f);
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = take_max ? fmaxf(v, w) : v + w;
    }
    __syncthreads();
    return v;
}

extern "C" __global__ void softmax_two_pass(const float* x, float* y, int cols) {
    __shared__ float scratch[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_reduce(m, true, scratch);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - SHIFT(m));
    s = block_reduce(s, false, scratch);
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - SHIFT(m)) * inv;
}
