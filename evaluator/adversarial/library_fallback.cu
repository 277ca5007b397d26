/*@kevo
{
  "description": "adversarial: 'softmax' that hands the row reductions to CUB's block reduce instead of writing them",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_cub", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect source-rejected
// why: falling back to a library. kevo.h is the only header a kernel file may include (NVRTC has no CUDA or C++ library headers, and there is no host code to call cuDNN or cuBLAS); the source policy names the include before compiling.
#include "kevo.h"
#include <cub/block/block_reduce.cuh>

extern "C" __global__ void softmax_cub(const float* x, float* y, int cols) {
    typedef cub::BlockReduce<float, 256> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    __shared__ float m_all, s_all;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = Reduce(tmp).Reduce(m, cub::Max());
    if (threadIdx.x == 0) m_all = m;
    __syncthreads();
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m_all);
    __syncthreads();
    s = Reduce(tmp).Sum(s);
    if (threadIdx.x == 0) s_all = s;
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m_all) / s_all;
}
