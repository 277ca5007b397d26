/*@kevo
{
  "description": "adversarial: row statistics a block per row, then a grid-stride normalisation over every element whose index and count are 32-bit ints",
  "workspace": "rows * 8",
  "plans": [
    { "launches": [ { "kernel": "row_stats", "grid": "rows", "block": 512, "args": ["x", "ws", "cols"] },
                    { "kernel": "normalise", "grid": "min(cdiv(rows * cols, 256), sms * 8)", "block": 256,
                      "args": ["x", "y", "ws", "rows", "cols"] } ] }
  ]
}
*/
// @expect unwritten-output
// @eval --at-scale
// why: rows * cols in an int is right below 2^31 elements, so every suite, fresh and held-out shape passes; at the at-scale shape (16385x131073, 2147631105 elements) it wraps negative, the normalisation's loop runs no iteration, and every output keeps kevo's poison pattern.
#include "kevo.h"

// ws[row] = (row max, 1 / sum of exp(x - max)); the row offset is 64-bit here, and each thread's running sum is a
// double: a float one drops the smallest terms over the 87,000 terms per thread of a drawn row of 44.5 million
// columns (relative L2 1.2e-4 on normal-4, past the 1e-4 bound, before the at-scale shape was reached).
extern "C" __global__ void row_stats(const float* x, float2* ws, int cols) {
    __shared__ float sm[32], ss[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF;
    double sd = 0.0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        if (v > m) { sd = sd * expf(m - v) + 1.0; m = v; }
        else if (v != -KEVO_INF) sd += expf(v - m);
    }
    float s = (float)sd;
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        const bool live = lane < (int)(blockDim.x >> 5);
        m = live ? sm[lane] : -KEVO_INF;
        s = live ? ss[lane] : 0.0f;
        kevo_warp_online(m, s);
        if (lane == 0) ws[blockIdx.x] = make_float2(m, 1.0f / s);
    }
}

// The defect: the element count and index are ints, as if no matrix had 2^31 elements.
extern "C" __global__ void normalise(const float* x, float* y, const float2* ws, int rows, int cols) {
    const int total = rows * cols;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        const float2 st = ws[i / cols];
        y[i] = expf(x[i] - st.x) * st.y;
    }
}
