/*@kevo
{
  "op": "softmax_backward",
  "description": "adversarial: softmax's backward that takes dy's mean over the row in place of the dot product sum(y * dy): dx = y * (dy - mean(dy))",
  "plans": [ { "launches": [ { "kernel": "softmax_backward_dy_mean", "grid": "rows", "block": 256, "args": ["y", "dy", "dx", "cols"] } ] } ]
}
*/
// @expect wrong-result
// why: y * (dy - mean(dy)) is off from y * (dy - sum(y * dy)) by y * (sum(y * dy) - mean(dy)), of the order of the hot entry's dy on every row whose y is not flat (normal-4, dominant cases); on flat rows (y = 1/cols) the two agree, which is why a check on constant inputs alone would pass it
#include "kevo.h"

__device__ __forceinline__ float block_sum(float v, float* partial) {
    v = kevo_warp_sum(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? partial[lane] : 0.0f;
    return kevo_warp_sum(v);
}

extern "C" __global__ void softmax_backward_dy_mean(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) {
    __shared__ float partial[32];
    const size_t off = (size_t)blockIdx.x * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += kevo_to_float(dy[off + c]);
    const float mean = block_sum(sum, partial) / (float)cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = kevo_to_float(y[off + c]), g = kevo_to_float(dy[off + c]);
        dx[off + c] = kevo_from_float<KEVO_Y>(p * (g - mean));
    }
}
