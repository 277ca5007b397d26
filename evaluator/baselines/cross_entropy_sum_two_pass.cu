/*@kevo
{
  "op": "cross_entropy_sum",
  "description": "baseline: a block per row (256 threads): pass 1 per-thread online (max, sum) and a block reduction, pass 2 reads x again and writes g (p - onehot); each row's loss added to a float64 total, which one thread writes as the loss",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "workspace": "16",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "ce_start", "grid": 1, "block": 32, "args": ["ws"] },
                    { "kernel": "ce_rows", "grid": "rows", "block": 256, "args": ["x", "labels", "dx", "ws", "g", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 32, "args": ["ws", "loss"] } ] }
  ]
}
*/
#include "kevo.h"

#define IGNORE_INDEX (-100ll)

// ws[0]: the sum of the live rows' losses, which ce_rows adds to. Every launch of the plan starts it at 0: the
// workspace holds nothing from an earlier one.
extern "C" __global__ void ce_start(double* ws) {
    if (threadIdx.x == 0) ws[0] = 0.0;
}

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// cross_entropy_sum's own baseline (cuDNN has none): one row per block, x read twice. The math is float throughout
// but for the loss's total.
extern "C" __global__ void ce_rows(const KEVO_X* x, const long long* labels, KEVO_Y* dx, double* ws, float g,
                                   int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* xr = x + off;
    KEVO_Y* dr = dx + off;
    const long long label = labels[blockIdx.x];
    if (label == IGNORE_INDEX) {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) dr[c] = kevo_from_float<KEVO_Y>(0.0f);
        return;
    }
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
    // (x - m) - log(s), never x - (m + log(s)): m + log(s) absorbs log(s) where m is huge (a row masked with float32's
    // lowest value throughout, whose probabilities are 1 / cols and loss log(cols)).
    const float log_s = logf(s);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = expf((kevo_to_float(xr[c]) - m) - log_s);
        dr[c] = kevo_from_float<KEVO_Y>(g * (c == label ? p - 1.0f : p));
    }
    if (threadIdx.x == 0) atomicAdd(&ws[0], (double)((m - kevo_to_float(xr[label])) + log_s));
}

// The sum: 0 where no row is live, as torch gives.
extern "C" __global__ void ce_finish(const double* ws, float* loss) {
    if (threadIdx.x == 0) loss[0] = (float)ws[0];
}
