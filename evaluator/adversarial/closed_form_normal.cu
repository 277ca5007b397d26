/*@kevo
{
  "description": "adversarial: 'softmax' without any reduction, using the closed form E[exp(x)] = exp(1/2) of a standard normal row: y = exp(x - 1/2) / cols",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_closed_form", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_closed_form", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect wrong-result
// why: a shortcut that holds for one input distribution only, and only on average. On normal-1 rows the true row sum differs from cols * exp(1/2) by several percent at 128 columns (the sample mean of exp(x) has a relative spread of sqrt((e - 1) / cols)), far past 1e-4 relative per element; on the other cases it is wrong outright. It writes every output, so it is wrong-result, at 32x128 case normal-1.
#include "kevo.h"

extern "C" __global__ void softmax_closed_form(const float* x, float* y, int cols) {
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    // The defect: no max, no sum; the expected sum of a standard normal row stands in for the row's own.
    const float inv = 1.0f / (float)cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - 0.5f) * inv;
}
