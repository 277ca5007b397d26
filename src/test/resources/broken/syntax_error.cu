/*@kevo
{
  "description": "line 13 uses a name that is declared nowhere; line 14 is fine",
  "plans": [ { "launches": [ { "kernel": "softmax_broken", "grid": "rows", "block": 256,
                               "args": ["x", "y", "cols"] } ] } ]
}
*/
#include "kevo.h"

extern "C" __global__ void softmax_broken(const float* x, float* y, int cols) {
    const size_t off = (size_t)blockIdx.x * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = x[off + c] * undeclared_scale;
        y[off + c] = v;
    }
}
