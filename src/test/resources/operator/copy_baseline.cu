/*@kevo
{
  "description": "the test operator's own baseline: one thread an element",
  "op": "copy",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "plans": [ { "launches": [ { "kernel": "copy_elements", "grid": "cdiv(rows * cols, 256)", "block": 256,
                               "args": ["src", "dst", "rows", "cols"] } ] } ]
}
*/
#include "kevo.h"
extern "C" __global__ void copy_elements(const KEVO_X* src, KEVO_Y* dst, int rows, int cols) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < (long long)rows * cols) dst[i] = kevo_from_float<KEVO_Y>(kevo_to_float(src[i]));
}
