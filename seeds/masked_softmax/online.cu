/*@kevo
{
  "op": "masked_softmax",
  "description": "online, single read: block per row; each thread folds an online (max, sum) of the scaled, masked scores as it stages them in shared memory, so x and the mask are read once and y written from the staged scores; rows longer than STAGE_MAX keys read x again instead",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "BLOCK": { "values": [128, 256, 512, 1024], "value": 512, "about": "threads per row" },
    "STAGE_MAX": { "values": [4096, 8192, 16384, 32768, 49152], "value": 32768, "about": "longest row staged in shared memory (4 bytes a key)" }
  },
  "plans": [
    { "when": "cols <= STAGE_MAX",
      "launches": [ { "kernel": "masked_softmax_staged", "grid": "rows", "block": "BLOCK", "smem": "cols * 4",
                      "args": ["x", "lengths", "mask", "y", "scale", "cols", "heads", "queries", "mask_kind"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "masked_softmax_reread", "grid": "rows", "block": "BLOCK",
                      "args": ["x", "lengths", "mask", "y", "scale", "cols", "heads", "queries", "mask_kind"] } ] }
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

// The row's (max, sum) from every thread's: every warp folds the per-warp pairs, so all threads end with it.
__device__ __forceinline__ void block_online(float& m, float& s) {
    __shared__ float sm[32], ss[32];
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31;
    if (lane == 0) { sm[threadIdx.x >> 5] = m; ss[threadIdx.x >> 5] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
}

// Keys up to STAGE_MAX: the scores are computed once, kept in shared memory (-inf where masked), and y is written from
// them, so x and the mask are read once. A row with no score left (m = -inf) writes 0 throughout.
extern "C" __global__ void __launch_bounds__(BLOCK) masked_softmax_staged(
        const KEVO_X* x, const int* lengths, const KEVO_X* mask, KEVO_Y* y, float scale, int cols, int heads,
        int queries, int mask_kind) {
    extern __shared__ float staged[];
    const long long r = blockIdx.x;
    const KEVO_X* xr = x + r * cols;
    KEVO_Y* yr = y + r * cols;
    const RowMask rm = row_mask(r, cols, heads, queries, mask_kind, lengths, mask);

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < rm.limit; c += BLOCK) {
        const float v = score(rm, scale, c, kevo_to_float(xr[c]));
        staged[c] = v;
        online_add(m, s, v);
    }
    block_online(m, s);  // its barrier also orders each thread's staged writes before the reads below

    const float inv = m == -KEVO_INF ? 0.0f : 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        const float v = c < rm.limit ? staged[c] : -KEVO_INF;
        yr[c] = kevo_from_float<KEVO_Y>(v == -KEVO_INF ? 0.0f : expf(v - m) * inv);
    }
}

// Longer rows: the same fold, then x (and the mask) read again for the write.
extern "C" __global__ void __launch_bounds__(BLOCK) masked_softmax_reread(
        const KEVO_X* x, const int* lengths, const KEVO_X* mask, KEVO_Y* y, float scale, int cols, int heads,
        int queries, int mask_kind) {
    const long long r = blockIdx.x;
    const KEVO_X* xr = x + r * cols;
    KEVO_Y* yr = y + r * cols;
    const RowMask rm = row_mask(r, cols, heads, queries, mask_kind, lengths, mask);

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < rm.limit; c += BLOCK) online_add(m, s, score(rm, scale, c, kevo_to_float(xr[c])));
    block_online(m, s);

    const float inv = m == -KEVO_INF ? 0.0f : 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        const float v = c < rm.limit ? score(rm, scale, c, kevo_to_float(xr[c])) : -KEVO_INF;
        yr[c] = kevo_from_float<KEVO_Y>(v == -KEVO_INF ? 0.0f : expf(v - m) * inv);
    }
}
