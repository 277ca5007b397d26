/*@kevo
{
  "description": "adversarial: online softmax whose statistics pass reads 16 elements past the end of each row",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_overread", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_overread", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @eval --sanitize
// @expect memory-error
// why: the last row reads 16 floats past the end of x; under --sanitize x is allocated at exactly its size and memcheck reports the first read past it. Without --sanitize it is wrong-result: each row's (max, sum) also takes in the next row's first 16 inputs, and the last row 16 guard words after x (0x6B65766F, about 2.8e26), so max and sum are wrong but finite (the last row's outputs all become 0), and nothing is written out of place.
#include "kevo.h"

#define TAIL 16  // the defect: "padding" of the unrolled loads, read as if it belonged to the row

extern "C" __global__ void softmax_overread(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols + TAIL; c += blockDim.x) {
        const float v = xr[c];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
        else if (v != -KEVO_INF) s += expf(v - m);
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
