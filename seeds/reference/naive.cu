/*@kevo
{
  "description": "naive: one thread per row, three sequential passes (max, sum of exp, write)",
  "knobs": { "BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "rows (threads) per block" } },
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_naive", "grid": "cdiv(rows, BLOCK)", "block": "BLOCK",
                      "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

extern "C" __global__ void softmax_naive(const float* x, float* y, int rows, int cols) {
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -KEVO_INF;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);

    // One thread adds up to millions of terms in sequence: a float accumulator would drop
    // the small terms once the sum is large, so accumulate in double.
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += expf(xr[c] - m);

    const float inv = (float)(1.0 / s);
    for (int c = 0; c < cols; ++c) yr[c] = expf(xr[c] - m) * inv;
}
