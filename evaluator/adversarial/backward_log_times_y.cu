/*@kevo
{
  "op": "log_softmax_backward",
  "description": "adversarial: log_softmax's backward that carries the row's sum(dy) back with y (the log-probability) in place of exp(y) (the probability): dx = dy - y * sum(dy)",
  "plans": [ { "launches": [ { "kernel": "log_softmax_backward_times_y", "grid": "rows", "block": 256, "args": ["y", "dy", "dx", "cols"] } ] } ]
}
*/
// @expect wrong-result
// why: softmax's backward multiplies by y, log_softmax's by exp(y); taking y for a log-probability (negative, of magnitude log(cols) and more) puts |y| * |sum(dy)| where exp(y) * |sum(dy)| belongs, off by more than the bound on every row whose sum(dy) is not 0 (normal dy rows)
#include "kevo.h"

__device__ __forceinline__ float block_sum(float v, float* partial) {
    v = kevo_warp_sum(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x >> 5) ? partial[lane] : 0.0f;
    return kevo_warp_sum(v);
}

extern "C" __global__ void log_softmax_backward_times_y(const KEVO_X* y, const KEVO_X* dy, KEVO_Y* dx, int cols) {
    __shared__ float partial[32];
    const size_t off = (size_t)blockIdx.x * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += kevo_to_float(dy[off + c]);
    sum = block_sum(sum, partial);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float l = kevo_to_float(y[off + c]), g = kevo_to_float(dy[off + c]);
        dx[off + c] = kevo_from_float<KEVO_Y>(g - l * sum);
    }
}
