/*@kevo
{
  "description": "the test operator y = x: a block copies a row, float4 where the row is aligned",
  "op": "copy",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "plans": [ { "launches": [ { "kernel": "copy_rows", "grid": "rows", "block": 256, "args": ["src", "dst", "cols"] } ] } ]
}
*/
#include "kevo.h"
extern "C" __global__ void copy_rows(const KEVO_X* src, KEVO_Y* dst, int cols) {
    const long long base = (long long)blockIdx.x * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[base + c] = kevo_from_float<KEVO_Y>(kevo_to_float(src[base + c]));
}
