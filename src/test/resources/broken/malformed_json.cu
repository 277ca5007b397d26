/*@kevo
{
  "description": "the grid on line 6 is an unquoted expression, which JSON does not allow",
  "plans": [
    { "launches": [ { "kernel": "softmax",
                      "grid": rows, "block": 256,
                      "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"
extern "C" __global__ void softmax(const float* x, float* y, int cols) {}
