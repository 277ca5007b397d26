/*@kevo
{
  "op": "masked_softmax",
  "description": "warp per row: WARPS rows a block, each warp folds an online (max, sum) of its row's visible scores with kevo_warp_online, then writes exp(score - max) / sum, 0 where masked (two reads of x, none past a causal or padding limit)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "WARPS": { "values": [1, 2, 4, 8, 16, 32], "value": 8, "about": "rows per block, one warp each" }
  },
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "masked_softmax_warp", "grid": "cdiv(rows, WARPS)", "block": "WARPS * 32",
                      "args": ["x", "lengths", "mask", "y", "scale", "rows", "cols", "heads", "queries", "mask_kind"] } ] }
  ]
}
*/
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

// One warp a row: no shared memory and no block barrier, so short rows (attention over a few thousand keys) pay only
// the two reads; a long row leaves the block's other warps to their own rows. The math is float throughout.
extern "C" __global__ void __launch_bounds__(WARPS * 32) masked_softmax_warp(
        const KEVO_X* x, const int* lengths, const KEVO_X* mask, KEVO_Y* y, float scale, int rows, int cols,
        int heads, int queries, int mask_kind) {
    const long long r = (long long)blockIdx.x * WARPS + (threadIdx.x >> 5);
    if (r >= rows) return;  // a whole warp leaves: the shuffles below have every lane of the warps that stay
    const int lane = threadIdx.x & 31;
    const KEVO_X* xr = x + r * cols;
    KEVO_Y* yr = y + r * cols;
    const RowMask rm = row_mask(r, cols, heads, queries, mask_kind, lengths, mask);

    float m = -KEVO_INF, s = 0.0f;
    for (int c = lane; c < rm.limit; c += 32) online_add(m, s, score(rm, scale, c, kevo_to_float(xr[c])));
    kevo_warp_online(m, s);

    // A row with no score left (m = -inf) writes 0 throughout, as a masked key does.
    const float inv = m == -KEVO_INF ? 0.0f : 1.0f / s;
    for (int c = lane; c < cols; c += 32) {
        const float v = c < rm.limit ? score(rm, scale, c, kevo_to_float(xr[c])) : -KEVO_INF;
        yr[c] = kevo_from_float<KEVO_Y>(v == -KEVO_INF ? 0.0f : expf(v - m) * inv);
    }
}
