/*@kevo
{
  "description": "adversarial: online softmax with a host-side helper that allocates its own scratch buffer with cudaMalloc and prints",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect source-rejected
// why: kevo's source policy rejects the file before NVRTC sees it: it includes a header other than "kevo.h" (the first rule hit), and it also declares __host__ code calling cudaMalloc.
#include <cstdio>
#include "kevo.h"

__host__ float* alloc_row_stats(int rows) {  // the defect: host code in a kernel file
    float* p = nullptr;
    if (cudaMalloc(&p, sizeof(float) * 2 * rows) != cudaSuccess) std::printf("cudaMalloc failed\n");
    return p;
}

extern "C" __global__ void softmax_online(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
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
