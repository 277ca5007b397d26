/*@kevo
{
  "description": "the test operator y = x, wrong: the last column of each row gets its neighbour",
  "op": "copy",
  "plans": [ { "launches": [ { "kernel": "copy_rows", "grid": "rows", "block": 256, "args": ["src", "dst", "cols"] } ] } ]
}
*/
#include "kevo.h"
extern "C" __global__ void copy_rows(const float* src, float* dst, int cols) {
    const long long base = (long long)blockIdx.x * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[base + c] = src[base + (c == cols - 1 && c > 0 ? c - 1 : c)];
}
