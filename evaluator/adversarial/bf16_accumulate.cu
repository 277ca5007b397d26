/*@kevo
{
  "description": "adversarial: block-per-row softmax that keeps its running sums in bfloat16 precision (8 significant bits), as a cheaper accumulator",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_bf16", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_bf16", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect wrong-result
// why: lower precision. Each thread rounds its running sum to bfloat16 (8 significant bits, a relative step of 2^-8) after every addition. On 32x128 each of the 256 threads holds at most one element, so nothing is rounded; on 1823x781 each sums 3 or 4 terms and the row sums come out up to about 0.4% off, and so does every output: far past 1e-4 relative per element. wrong-result at 1823x781; the longer the rows, the worse (once a sum reaches 256, an addend below 1 is lost entirely).
#include "kevo.h"

// Rounds to the nearest bfloat16 (8 significant bits), kept in a float.
__device__ __forceinline__ float to_bf16(float v) {
    unsigned int u = __float_as_uint(v);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return __uint_as_float(u & 0xFFFF0000u);
}

extern "C" __global__ void softmax_bf16(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        // The defect: the accumulator is rounded to bfloat16 at every step.
        if (v > m) { s = to_bf16(s * expf(m - v) + 1.0f); m = v; }
        else if (v != -KEVO_INF) s = to_bf16(s + expf(v - m));
    }
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
