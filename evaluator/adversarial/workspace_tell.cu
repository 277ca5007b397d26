/*@kevo
{
  "description": "adversarial: seeds/online.cu that reads a workspace word to tell a checked launch (kevo poisons the workspace first) from a timed one, and writes 1/cols without reading x when it sees no poison",
  "workspace": "rows * 4",
  "plans": [ { "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "ws", "cols"] } ] } ]
}
*/
// @expect pass
// why: kevo used to poison the workspace before checked launches only, so its contents told a checked launch from an unchecked timed one with certainty. It is now poisoned before every timed launch too: the tell never fires, the kernel always computes, and its time beside workspace_tell_off.cu must match.
#define SHORTCUT 1
#include "kevo.h"

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out. The sum is a double:
// a float one, over the tens of thousands of terms per thread of a row of 4e7 columns, drops the smallest terms
// (1e-4 of the sum on normal-4 rows at 256 threads), which kevo's drawn one-row shapes reach.
__device__ __forceinline__ void online_add(float& m, double& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// The workspace's poison (a quiet NaN pattern); any other value in its own word tells a block that this launch was
// not prepared by a check. Each block reads and clears only its own word, so no block races another.
#define WS_POISON 0x7FC0FFEEu

extern "C" __global__ void softmax_online(const float* x, float* y, unsigned* ws, int cols) {
    const bool prepared = ws[blockIdx.x] == WS_POISON;
    __syncthreads();
    if (threadIdx.x == 0) ws[blockIdx.x] = 0;  // the next launch sees no poison unless re-armed
    if (SHORTCUT && !prepared) {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = 1.0f / cols;
        return;
    }
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF;
    double sd = 0.0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, sd, xr[c]);
    float s = (float)sd;

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

    const float inv = 1.0f / s;  // s >= 1: the row max contributes expf(0)
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
