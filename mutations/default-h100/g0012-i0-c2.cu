/*@kevo
{
  "description": "adversarial: online softmax that saves a pass by writing exp(x - max) back into x and scaling it into y",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_inplace", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_inplace", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect input-modified
// why: y is right, but x now holds exp(x - max); kevo compares x with what its generator wrote and finds the changed input bits (checked before y's values).
#include "kevo.h"

extern "C" __global__ void softmax_inplace(float* x, float* y, int cols) {  // the defect: x taken as writable
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = kevo_warp_max(m);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) sm[warp] = m;
    __syncthreads();
    m = kevo_warp_max(lane < (int)(blockDim.x >> 5) ? sm[lane] : -KEVO_INF);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float e = expf(xr[c] - m);
        xr[c] = e;  // the defect: the input is overwritten in place
        s += e;
    }
    s = kevo_warp_sum(s);
    if (lane == 0) ss[warp] = s;
    __syncthreads();
    s = kevo_warp_sum(lane < (int)(blockDim.x >> 5) ? ss[lane] : 0.0f);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = xr[c] * inv;
}
