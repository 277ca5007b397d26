/*@kevo
{
  "description": "block is given twice in the launch on line 5",
  "plans": [
    { "launches": [ { "kernel": "softmax", "grid": "rows", "block": 256, "block": 512,
                      "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"
extern "C" __global__ void softmax(const float* x, float* y, int cols) {}
