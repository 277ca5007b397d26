/*@kevo
{
  "description": "adversarial: warp-per-row softmax for short rows whose lanes each hold 4 elements of a 128-column row, with no bounds checks; block-per-row online softmax for the rest",
  "plans": [
    { "when": "cols <= 128",
      "launches": [ { "kernel": "softmax_row128", "grid": "cdiv(rows, 8)", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 512, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect out-of-bounds-write
// why: the short-row plan covers cols <= 128 but its kernel always reads and writes 128 columns; the suite's only short rows have exactly 128 (32x128, 65536x128), so it passes them, while every fresh narrow shape (under 128 columns) makes the last row write past the end of y into the guard zone.
#include "kevo.h"

// A warp per row, 8 rows per block; lane l holds columns l, l + 32, l + 64 and l + 96, which is the whole row only
// when it has exactly 128 columns (the defect: the plan sends it every row of up to 128).
extern "C" __global__ void softmax_row128(const float* x, float* y, int rows, int cols) {
    const int row = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (row >= rows) return;  // the whole warp leaves together, so the shuffles below stay full-mask
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float v[4];
    float m = -KEVO_INF;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        v[k] = xr[lane + 32 * k];
        m = fmaxf(m, v[k]);
    }
    m = kevo_warp_max(m);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) s += expf(v[k] - m);  // -inf entries give 0
    const float inv = 1.0f / kevo_warp_sum(s);
#pragma unroll
    for (int k = 0; k < 4; ++k) yr[lane + 32 * k] = expf(v[k] - m) * inv;
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
