/*@kevo
{
  "op": "masked_softmax",
  "description": "adversarial: masked_softmax's baseline whose row maximum is taken of the unscaled scores (x + mask) and subtracted from the scaled ones: exp(scale * x + mask - max(x + mask)) / sum",
  "plans": [ { "launches": [ { "kernel": "masked_softmax_block_two_pass", "grid": "rows", "block": 256,
                               "args": ["x", "lengths", "mask", "y", "scale", "cols", "heads", "queries", "mask_kind"] } ] } ]
}
*/
// @expect wrong-result
// why: a softmax forgives any constant taken off a row until an exponential underflows: on values in [500, 1000], scaled by 1/sqrt(d) (at most 0.125) and less the unscaled maximum, every exponential is exp(-375) or less, 0 in float, and the kernel writes 0 where the answer is a probability; the normal cases before it pass (a sum that underflows is written 0, so nothing is NaN)
#include "kevo.h"

// The mask kinds as kevo numbers them (the plan variable mask_kind).
enum { MASK_NONE = 0, MASK_CAUSAL = 1, MASK_PADDING = 2, MASK_ADDITIVE = 3 };

// The lowest finite value of x's type (torch.finfo(dtype).min): an additive mask's entry of it, or -inf, masks its key.
__device__ __forceinline__ float lowest_of(float) { return -FLT_MAX; }
__device__ __forceinline__ float lowest_of(kevo_bf16) { return __uint_as_float(0xFF7F0000u); }
__device__ __forceinline__ float lowest_of(kevo_half) { return -65504.0f; }

// What the mask says of a whole row: keys at or past `limit` are masked (causal, padding; cols otherwise), and `bias`
// is the row's additive mask (null under the other kinds). Causal is aligned to the bottom right: query q sees keys up
// to q + cols - queries.
struct RowMask {
    int limit;
    const KEVO_X* bias;
};

__device__ __forceinline__ RowMask row_mask(long long r, int cols, int heads, int queries, int kind,
                                            const int* lengths, const KEVO_X* mask) {
    const long long q = r % queries;
    const long long b = r / queries / heads;
    RowMask rm{cols, nullptr};
    if (kind == MASK_CAUSAL) rm.limit = (int)max(0LL, min((long long)cols, q + cols - queries + 1));
    else if (kind == MASK_PADDING) rm.limit = max(0, min(cols, lengths[b]));
    else if (kind == MASK_ADDITIVE) rm.bias = mask + (b * queries + q) * cols;
    return rm;
}

// Key c's score from x's value v: -inf where masked, else scale * v + bias in one rounding.
__device__ __forceinline__ float score(const RowMask& rm, float scale, int c, float v) {
    if (c >= rm.limit) return -KEVO_INF;
    float bias = 0.0f;
    if (rm.bias != nullptr) {
        bias = kevo_to_float(rm.bias[c]);
        if (bias == -KEVO_INF || bias == lowest_of(KEVO_X{})) return -KEVO_INF;
    }
    return fmaf(scale, v, bias);
}

// evaluator/baselines/masked_softmax_two_pass.cu, but its maximum is of the unscaled scores.
extern "C" __global__ void masked_softmax_block_two_pass(const KEVO_X* x, const int* lengths, const KEVO_X* mask,
                                                         KEVO_Y* y, float scale, int cols, int heads, int queries,
                                                         int mask_kind) {
    __shared__ float sm[32], ss[32];
    const long long r = blockIdx.x;
    const KEVO_X* xr = x + r * cols;
    KEVO_Y* yr = y + r * cols;
    const RowMask rm = row_mask(r, cols, heads, queries, mask_kind, lengths, mask);

    // The defect: the row maximum is taken of the unscaled scores, x + bias, and subtracted after the scale is applied
    // to x alone; a constant a row is harmless to a softmax only while no exponential overflows or underflows.
    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < rm.limit; c += blockDim.x) {
        const float v = score(rm, 1.0f, c, kevo_to_float(xr[c]));
        m = fmaxf(m, v);
    }
    float s = 0.0f;
    m = kevo_warp_max(m);
    if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = m;
    __syncthreads();
    m = (threadIdx.x & 31) < (int)(blockDim.x >> 5) ? sm[threadIdx.x & 31] : -KEVO_INF;
    m = kevo_warp_max(m);
    __syncthreads();
    for (int c = threadIdx.x; c < rm.limit; c += blockDim.x) {
        const float v = score(rm, scale, c, kevo_to_float(xr[c]));
        if (v != -KEVO_INF) s += expf(v - m);
    }
    s = kevo_warp_sum(s);
    if ((threadIdx.x & 31) == 0) ss[threadIdx.x >> 5] = s;
    __syncthreads();
    s = (threadIdx.x & 31) < (int)(blockDim.x >> 5) ? ss[threadIdx.x & 31] : 0.0f;
    s = kevo_warp_sum(s);

    // A sum that underflowed to 0 (or a row with no score left) writes 0: every output stays finite, divided, not
    // multiplied by an overflowing reciprocal.
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = c < rm.limit ? score(rm, scale, c, kevo_to_float(xr[c])) : -KEVO_INF;
        yr[c] = kevo_from_float<KEVO_Y>(v == -KEVO_INF || !(s > 0.0f) ? 0.0f : expf(v - m) / s);
    }
}
