/*@kevo
{
  "op": "masked_softmax",
  "description": "split rows: each row cut into chunks of CHUNK keys, a block a chunk; one launch writes each chunk's online (max, sum) of its visible scores to the workspace, a second merges the row's chunks in every block and writes its chunk, 0 where masked (two reads of x, none past a causal or padding limit, every SM busy however few the rows: decode)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "workspace": "rows * cdiv(cols, CHUNK) * 8",
  "knobs": {
    "CHUNK": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096, "about": "keys a block takes" },
    "BLOCK": { "values": [128, 256, 512, 1024], "value": 256, "about": "threads per block" }
  },
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "chunk_stats", "grid": "rows * cdiv(cols, CHUNK)", "block": "BLOCK",
                      "args": ["x", "lengths", "mask", "ws", "scale", "cols", "heads", "queries", "mask_kind", "CHUNK"] },
                    { "kernel": "chunk_write", "grid": "rows * cdiv(cols, CHUNK)", "block": "BLOCK",
                      "args": ["x", "lengths", "mask", "y", "ws", "scale", "cols", "heads", "queries", "mask_kind", "CHUNK"] } ] }
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

// The block's (max, sum) in every thread (a multiple of 32 threads): per-warp pairs folded by every warp.
__device__ __forceinline__ void block_online(float& m, float& s) {
    __shared__ float sm[32], ss[32];
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
}

// ws: per row, its chunks' (max, sum of exp(score - max)) as float2, chunk by chunk; a chunk past the row's causal or
// padding limit, or masked throughout, holds (-inf, 0), which merges safely.
extern "C" __global__ void chunk_stats(const KEVO_X* x, const int* lengths, const KEVO_X* mask, float2* ws, float scale,
                                       int cols, int heads, int queries, int mask_kind, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / chunks;
    const RowMask rm = row_mask(row, cols, heads, queries, mask_kind, lengths, mask);
    const int begin = (int)(blockIdx.x % chunks) * chunk, end = min(begin + chunk, rm.limit);
    const KEVO_X* xr = x + row * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = begin + threadIdx.x; c < end; c += blockDim.x) online_add(m, s, score(rm, scale, c, kevo_to_float(xr[c])));
    block_online(m, s);
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(m, s);
}

extern "C" __global__ void chunk_write(const KEVO_X* x, const int* lengths, const KEVO_X* mask, KEVO_Y* y,
                                       const float2* ws, float scale, int cols, int heads, int queries, int mask_kind,
                                       int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / chunks;
    const RowMask rm = row_mask(row, cols, heads, queries, mask_kind, lengths, mask);
    const int begin = (int)(blockIdx.x % chunks) * chunk, end = min(begin + chunk, cols);
    // Every block of the row merges the row's chunk pairs.
    float m = -KEVO_INF, s = 0.0f;
    for (int k = threadIdx.x; k < chunks; k += blockDim.x) {
        const float2 p = ws[row * chunks + k];
        kevo_online_merge(m, s, p.x, p.y);
    }
    block_online(m, s);
    // A row with no score left (m = -inf) writes 0 throughout, as a masked key does.
    const float inv = m == -KEVO_INF ? 0.0f : 1.0f / s;
    const KEVO_X* xr = x + row * cols;
    KEVO_Y* yr = y + row * cols;
    for (int c = begin + threadIdx.x; c < end; c += blockDim.x) {
        const float v = c < rm.limit ? score(rm, scale, c, kevo_to_float(xr[c])) : -KEVO_INF;
        yr[c] = kevo_from_float<KEVO_Y>(v == -KEVO_INF ? 0.0f : expf(v - m) * inv);
    }
}
