/*@kevo
{
  "op": "cross_entropy",
  "description": "adversarial: cross_entropy own baseline counting every row in n, ignored ones too (the mean over all rows, as a kernel that forgets ignore_index would take it)",
  "workspace": "16",
  "plans": [
    { "launches": [ { "kernel": "ce_count", "grid": 1, "block": 1024, "args": ["labels", "ws", "rows"] },
                    { "kernel": "ce_rows", "grid": "rows", "block": 256, "args": ["x", "labels", "dx", "ws", "g", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 32, "args": ["ws", "loss"] } ] }
  ]
}
*/
// @expect wrong-result
// why: with one row in eight ignored, n is 8/7 of the live rows: every live row's dx and the loss are 12% low, far past the bound; only the constant case (every row ignored) and a shape without ignored rows would let it through
#include "kevo.h"

#define IGNORE_INDEX (-100ll)

// ws[0]: the live rows n; ws[1]: the sum of their losses, which ce_rows adds to. Every launch of the plan starts here:
// the workspace holds nothing from an earlier one.
extern "C" __global__ void ce_count(const long long* labels, double* ws, int rows) {
    __shared__ int warps[32];
    int n = 0;
    for (int r = threadIdx.x; r < rows; r += blockDim.x) n += 1;  // every row, ignored or not
    for (int o = 16; o > 0; o >>= 1) n += __shfl_xor_sync(KEVO_FULL_MASK, n, o);
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = n;
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) total += warps[w];
        ws[0] = (double)total;
        ws[1] = 0.0;
    }
}

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

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
    const float per = g / (float)ws[0];  // n >= 1: this row is live
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = expf((kevo_to_float(xr[c]) - m) - log_s);
        dr[c] = kevo_from_float<KEVO_Y>(per * (c == label ? p - 1.0f : p));
    }
    if (threadIdx.x == 0) atomicAdd(&ws[1], (double)((m - kevo_to_float(xr[label])) + log_s));
}

// The mean: 0 / 0 = NaN where no row is live, as torch gives.
extern "C" __global__ void ce_finish(const double* ws, float* loss) {
    if (threadIdx.x == 0) loss[0] = (float)(ws[1] / ws[0]);
}
