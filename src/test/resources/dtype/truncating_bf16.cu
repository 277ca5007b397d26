/*@kevo
{
  "description": "seeds/online.cu in bf16 whose only defect is its conversion of y to bf16: the low 16 bits of the float are dropped (truncation) instead of rounded to nearest even",
  "dtype": "bf16",
  "plans": [ { "launches": [ { "kernel": "softmax_truncating", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] } ]
}
*/
#include "kevo.h"

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

extern "C" __global__ void softmax_truncating(const kevo_bf16* x, kevo_bf16* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(x[off + c]));
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31;
    if (lane == 0) { sm[threadIdx.x >> 5] = m; ss[threadIdx.x >> 5] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = expf(kevo_to_float(x[off + c]) - m) * inv;
        y[off + c] = kevo_bf16{(unsigned short)(__float_as_uint(v) >> 16)};  // the defect: truncation
    }
}
