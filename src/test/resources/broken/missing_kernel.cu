/*@kevo
{
  "description": "the plan launches softmax_fast, the file defines softmax_slow, and softmax_mangled is not extern \"C\"",
  "plans": [ { "launches": [ { "kernel": "softmax_fast", "grid": "rows", "block": 256,
                               "args": ["x", "y", "cols"] } ] } ]
}
*/
#include "kevo.h"
extern "C" __global__ void softmax_slow(const float* x, float* y, int cols) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = x[(size_t)blockIdx.x * cols + c];
}
__global__ void softmax_mangled(const float* x, float* y, int cols) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = x[(size_t)blockIdx.x * cols + c];
}
