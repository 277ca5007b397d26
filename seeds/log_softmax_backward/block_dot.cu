/*@kevo
{
  "op": "log_softmax_backward",
  "description": "block dot: block per row, sum(dy) per thread in float32 reduced across the block (warp shuffles, then shared memory), then dy - exp(y) * dot written (y and dy read twice)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "SMALL_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "threads per row up to SMALL_MAX columns" },
    "LARGE_BLOCK": { "values": [128, 256, 512, 1024], "value": 1024, "about": "threads per row beyond" },
    "SMALL_MAX": { "values": [256, 512, 1024, 2048, 4096], "value": 1024 }
  },
  "plans": [
    { "when": "cols <= SMALL_MAX",
      "launches": [ { "kernel": "log_softmax_backward_block", "grid": "rows", "block": "SMALL_BLOCK", "args": ["y", "dy", "dx", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "log_softmax_backward_block", "grid": "rows", "block": "LARGE_BLOCK", "args": ["y", "dy", "dx", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// The block's sum of v on every thread (blockDim.x a multiple of 32, at most 1024): shuffles within each warp, then
// the warps' sums through shared memory, folded again by every warp so that no broadcast is needed.
__device__ __forceinline__ float block_sum(float v, float* partial) {
    v = kevo_warp_sum(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? partial[lane] : 0.0f;
    return kevo_warp_sum(v);
}

// KEVO_X (y and dy) and KEVO_Y (dx): the element types of the dtype judged; the math is float throughout.
// One block a row: pass 1 folds sum(dy) per thread in float32 and reduces it across the block, pass 2 reads y and dy
// again and writes dy - exp(y) * dot; where y is -inf (masked) expf gives 0 and dx is exactly dy.
extern "C" __global__ void log_softmax_backward_block(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) {
    __shared__ float partial[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* yr = y + off;
    const KEVO_X* dyr = dy + off;
    KEVO_Y* dxr = dx + off;

    float dot = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = kevo_to_float(yr[c]), g = kevo_to_float(dyr[c]);
        dot += g;
    }
    dot = block_sum(dot, partial);

    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = kevo_to_float(yr[c]), g = kevo_to_float(dyr[c]);
        dxr[c] = kevo_from_float<KEVO_Y>(g - expf(p) * dot);
    }
}
