/*@kevo
{
  "description": "adversarial: block-per-row two-pass softmax whose max and sum reductions share one shared-memory array with no barrier between them",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_shared_scratch", "grid": "rows", "block": "min(256, cdiv(cols, 32) * 32)",
                      "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_shared_scratch", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @eval --sanitize
// @expect data-race
// why: a warp that has read the block's maximum out of red[] goes on to write its partial sum into the same slots while slower warps may still be reading the maximum there; nothing orders the two, so racecheck reports the hazard. Every warp has a share of the row to read again before it writes (the block is no wider than the row), so the slower warps have almost always finished and the outputs come out right: the evaluation alone passes it.
#include "kevo.h"

extern "C" __global__ void softmax_shared_scratch(const float* x, float* y, int cols) {
    __shared__ float red[32];  // one scratch array for both reductions, one slot per warp
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;

    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = kevo_warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    m = kevo_warp_max(lane < warps ? red[lane] : -KEVO_INF);
    // The defect: the sum below reuses red[] with no __syncthreads() between the last read of the maximum and the
    // first write of a partial sum.

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = kevo_warp_sum(s);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    s = kevo_warp_sum(lane < warps ? red[lane] : 0.0f);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
