/*@kevo
{
  "op": "masked_softmax",
  "description": "adversarial: masked_softmax's baseline, except that a row with no key left (fully masked) is written 1/cols, as a mask filled with a large negative bias gives it",
  "plans": [ { "launches": [ { "kernel": "masked_softmax_block_two_pass", "grid": "rows", "block": 256,
                               "args": ["x", "lengths", "mask", "y", "scale", "cols", "heads", "queries", "mask_kind"] } ] } ]
}
*/
// @expect wrong-result
// why: a fully masked row must be exactly 0 (SDPA's answer), and 1/cols is not, however long the row; such rows come from a causal mask's first query, which sees one key that an input case's -inf can hide, from padding lengths of 0, additive rows of lowest values, and causal masks with more queries than keys, so the first causal shape fails while every row that keeps a key is right
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

// Adds one score to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// evaluator/baselines/masked_softmax_two_pass.cu, right on every row that keeps a key.
extern "C" __global__ void masked_softmax_block_two_pass(const KEVO_X* x, const int* lengths, const KEVO_X* mask,
                                                         KEVO_Y* y, float scale, int cols, int heads, int queries,
                                                         int mask_kind) {
    __shared__ float sm[32], ss[32];
    const long long r = blockIdx.x;
    const KEVO_X* xr = x + r * cols;
    KEVO_Y* yr = y + r * cols;
    const RowMask rm = row_mask(r, cols, heads, queries, mask_kind, lengths, mask);

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < rm.limit; c += blockDim.x) online_add(m, s, score(rm, scale, c, kevo_to_float(xr[c])));

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

    // The defect: a row with no score left is written 1/cols throughout (Megatron's fallback, which fills masked
    // scores with -10000 and so softmaxes a fully masked row to a flat one), where the contract says 0.
    if (m == -KEVO_INF) {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = kevo_from_float<KEVO_Y>(1.0f / cols);
        return;
    }
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = c < rm.limit ? score(rm, scale, c, kevo_to_float(xr[c])) : -KEVO_INF;
        yr[c] = kevo_from_float<KEVO_Y>(v == -KEVO_INF ? 0.0f : expf(v - m) * inv);
    }
}
