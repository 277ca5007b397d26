/*@kevo
{
  "op": "softmax_backward",
  "description": "baseline: block per row (256 threads), pass 1 sum(y * dy) per thread and a block reduction, pass 2 reads y and dy again and writes y * (dy - dot)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_backward_block", "grid": "rows", "block": 256, "args": ["y", "dy", "dx", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// softmax_backward's own baseline, for when cuDNN's cudnnSoftmaxBackward cannot serve (bf16 in, float32 out, or no cuDNN).
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

// One block a row: pass 1 folds sum(y * dy) per thread in float32 and reduces it across the block, pass 2 reads y and dy
// again and writes y * (dy - dot); where y is 0 (masked or underflowed) dx is exactly 0.
extern "C" __global__ void softmax_backward_block(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) {
    __shared__ float partial[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* yr = y + off;
    const KEVO_X* dyr = dy + off;
    KEVO_Y* dxr = dx + off;

    float dot = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = kevo_to_float(yr[c]), g = kevo_to_float(dyr[c]);
        dot += p * g;
    }
    dot = block_sum(dot, partial);

    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = kevo_to_float(yr[c]), g = kevo_to_float(dyr[c]);
        dxr[c] = kevo_from_float<KEVO_Y>(p * (g - dot));
    }
}
