/*@kevo
{
  "op": "log_softmax",
  "description": "online: block per row, one pass of per-thread online (max, sum) merged with kevo_warp_online and across warps, then one pass writing x - max - log(sum) (two reads of x)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "SMALL_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "threads per row up to SMALL_MAX columns" },
    "MID_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 256, "about": "threads per row up to MID_MAX columns" },
    "LARGE_BLOCK": { "values": [128, 256, 512, 1024], "value": 1024, "about": "threads per row beyond" },
    "SMALL_MAX": { "values": [128, 256, 512, 1024, 2048], "value": 512 },
    "MID_MAX": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096 }
  },
  "knob_rule": "SMALL_MAX < MID_MAX",
  "plans": [
    { "when": "cols <= SMALL_MAX",
      "launches": [ { "kernel": "log_softmax_online", "grid": "rows", "block": "SMALL_BLOCK", "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= MID_MAX",
      "launches": [ { "kernel": "log_softmax_online", "grid": "rows", "block": "MID_BLOCK", "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "log_softmax_online", "grid": "rows", "block": "LARGE_BLOCK", "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// KEVO_X and KEVO_Y: the element types of the dtype judged; the math is float throughout.
extern "C" __global__ void log_softmax_online(const KEVO_X* x, KEVO_Y* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* xr = x + off;
    KEVO_Y* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));

    // Block must be a multiple of 32 threads (full-mask shuffles). Every warp folds the
    // per-warp pairs, so all threads end with the row's (max, sum) without a broadcast.
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    // x - max first, then the log of the sum (s >= 1: the row max contributes expf(0)): a row masked throughout with
    // one finite value gets -log(cols), and a -inf entry gets -inf. Never the log of a probability, which underflows.
    const float log_sum = logf(s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        yr[c] = kevo_from_float<KEVO_Y>((kevo_to_float(xr[c]) - m) - log_sum);
    }
}
