/*@kevo
{
  "description": "a C++ syntax error (an operator with no operand) on line 11",
  "plans": [ { "launches": [ { "kernel": "softmax_broken", "grid": "rows", "block": 256,
                               "args": ["x", "y", "cols"] } ] } ]
}
*/
#include "kevo.h"

extern "C" __global__ void softmax_broken(const float* x, float* y, int cols) {
    const int c = threadIdx.x + ;
    if (c < cols) y[c] = x[c];
}
