/*@kevo
{
  "description": "two plans; the second's grid misspells rows",
  "plans": [
    { "when": "cols <= 1024",
      "launches": [ { "kernel": "k", "grid": "cdiv(rows, 8)", "block": 256,
                      "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "k",
                      "grid": "rosw",
                      "block": 512,
                      "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
#include "kevo.h"
extern "C" __global__ void k(const float* x, float* y, int rows, int cols) { }
