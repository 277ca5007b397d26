/*@kevo
{
  "description": "'threads' is not a launch key (the contract calls it 'block')",
  "plans": [
    { "launches": [ { "kernel": "softmax", "grid": "rows", "threads": 256,
                      "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"
extern "C" __global__ void softmax(const float* x, float* y, int cols) {}
