/*@kevo
{
  "description": "PLANTED DEFECT: the write pass's tail loop stops at cols - 1, so when cols % 4 != 0 the last element of every row is never written (max and sum are right)",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_quads", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

template <bool IsMax>
__device__ __forceinline__ float block_reduce(float v, float* sh) {
    const int lane = threadIdx.x & 31;
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    if (lane == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : (IsMax ? -KEVO_INF : 0.0f);
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    __syncthreads();
    return v;
}

// Each thread takes groups of four consecutive columns (four independent loads in flight);
// the cols % 4 columns left over form a short tail.
extern "C" __global__ void softmax_quads(const float* x, float* y, int cols) {
    __shared__ float sh[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;
    const int body = cols & ~3;

    float m = -KEVO_INF;
    for (int c = 4 * threadIdx.x; c < body; c += 4 * blockDim.x)
        m = fmaxf(fmaxf(m, fmaxf(xr[c], xr[c + 1])), fmaxf(xr[c + 2], xr[c + 3]));
    for (int c = body + threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_reduce<true>(m, sh);

    float s = 0.0f;
    for (int c = 4 * threadIdx.x; c < body; c += 4 * blockDim.x)
        s += (expf(xr[c] - m) + expf(xr[c + 1] - m)) + (expf(xr[c + 2] - m) + expf(xr[c + 3] - m));
    for (int c = body + threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = block_reduce<false>(s, sh);

    const float inv = 1.0f / s;
    for (int c = 4 * threadIdx.x; c < body; c += 4 * blockDim.x) {
        yr[c] = expf(xr[c] - m) * inv;
        yr[c + 1] = expf(xr[c + 1] - m) * inv;
        yr[c + 2] = expf(xr[c + 2] - m) * inv;
        yr[c + 3] = expf(xr[c + 3] - m) * inv;
    }
    for (int c = body + threadIdx.x; c < cols - 1; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
