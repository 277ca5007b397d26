/*@kevo
{
  "description": "adversarial: block-per-row softmax that stages the whole row in dynamic shared memory and asks for 1 GB of it",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_smem_row", "grid": "rows", "block": 1024, "smem": "1073741824",
                      "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect resources-exceeded
// why: 1073741824 bytes (1 GiB) of dynamic shared memory per block is far above any device's opt-in limit (227 KB on sm_90); kevo rejects the plan when it prepares the launch, before running anything.
#include "kevo.h"

extern "C" __global__ void softmax_smem_row(const float* x, float* y, int cols) {
    extern __shared__ float row[];  // the defect: "big enough for any row" (the plan's smem)
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        row[c] = v;
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
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(row[c] - m) * inv;
}
