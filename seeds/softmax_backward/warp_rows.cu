/*@kevo
{
  "op": "softmax_backward",
  "description": "warp rows: a warp per row up to WARP_MAX columns (ROWS_PER_BLOCK rows a block), sum(y * dy) reduced with shuffles alone; a block per row beyond; then y * (dy - dot) written (y and dy read twice)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "WARP_MAX": { "values": [256, 512, 1024, 2048, 4096], "value": 1024, "about": "longest row a warp takes" },
    "ROWS_PER_BLOCK": { "values": [2, 4, 8, 16, 32], "value": 8, "about": "warps, so rows, per block of the warp plan" },
    "LARGE_BLOCK": { "values": [128, 256, 512, 1024], "value": 512, "about": "threads per row beyond WARP_MAX" }
  },
  "plans": [
    { "when": "cols <= WARP_MAX",
      "launches": [ { "kernel": "softmax_backward_warp_rows", "grid": "cdiv(rows, ROWS_PER_BLOCK)", "block": "ROWS_PER_BLOCK * 32", "args": ["y", "dy", "dx", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_backward_block", "grid": "rows", "block": "LARGE_BLOCK", "args": ["y", "dy", "dx", "cols"] } ] }
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

// One warp a row, short rows: no shared memory and no barrier, the dot product in registers and shuffles.
extern "C" __global__ void softmax_backward_warp_rows(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int rows, int cols) {
    const long long r = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (r >= rows) return;  // a whole warp leaves together: the shuffles below stay full-mask
    const int lane = threadIdx.x & 31;
    const size_t off = (size_t)r * cols;
    const KEVO_X* yr = y + off;
    const KEVO_X* dyr = dy + off;
    KEVO_Y* dxr = dx + off;

    float dot = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        const float p = kevo_to_float(yr[c]), g = kevo_to_float(dyr[c]);
        dot += p * g;
    }
    dot = kevo_warp_sum(dot);
    for (int c = lane; c < cols; c += 32) {
        const float p = kevo_to_float(yr[c]), g = kevo_to_float(dyr[c]);
        dxr[c] = kevo_from_float<KEVO_Y>(p * (g - dot));
    }
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
