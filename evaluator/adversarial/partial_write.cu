/*@kevo
{
  "description": "adversarial: online softmax whose row loop stops one row early, leaving the last row unwritten",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_rows", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_rows", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
// @expect unwritten-output
// why: the off-by-one bound (row < rows - 1) skips the last row, whose outputs keep kevo's poison pattern 0x7FBADBAD; every other row is correct.
#include "kevo.h"

extern "C" __global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    for (int row = blockIdx.x; row < rows - 1; row += gridDim.x) {  // the defect: should be row < rows
        const size_t off = (size_t)row * cols;
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
        __syncthreads();  // sm/ss are reused by the next row of this block

        const float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
    }
}
