// The header starts on line 2 and is never closed.
/*@kevo
{
  "plans": [ { "launches": [ { "kernel": "softmax", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] } ]
}
#include "kevo.h"
extern "C" __global__ void softmax(const float* x, float* y, int cols) {}
