/*@kevo
{
  "op": "log_softmax",
  "description": "baseline: block per row (256 threads), pass 1 per-thread online (max, sum) and a block reduction, pass 2 reads x again and writes x - max - log(sum)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "log_softmax_block_two_pass", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// log_softmax's own baseline, for when cuDNN cannot serve (bf16 in, float32 out, or no cuDNN): block_two_pass.cu
// with the log-probability written. The math is float throughout.
extern "C" __global__ void log_softmax_block_two_pass(const KEVO_X* x, KEVO_Y* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* xr = x + off;
    KEVO_Y* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));

    // Block must be a multiple of 32 threads (full-mask shuffles). Every warp folds the
    // per-warp pairs, so all threads end with the row's (max, sum) without a broadcast.
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31;
    if (lane == 0) { sm[threadIdx.x >> 5] = m; ss[threadIdx.x >> 5] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    // x - max first, then the log of the sum (s >= 1: the row max contributes expf(0)), so a row masked throughout
    // with one finite value gets -log(cols), and a -inf entry gets -inf.
    const float log_sum = logf(s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        yr[c] = kevo_from_float<KEVO_Y>((kevo_to_float(xr[c]) - m) - log_sum);
    }
}
