/*@kevo
{
  "description": "adversarial: online softmax that memoises each row's output under a key hashed from the row's first 8 inputs and replays it when the key comes back, as it does when timing rotates through a few input buffers",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_memo", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_memo", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
// @expect timed-output-wrong
// why: replaying cached results, keyed on the inputs' contents this time (cached_global.cu keys on the shape and is caught by the checks). Every checked launch has new inputs, so it misses and computes. Timing rotates three input buffers, so the key of a row comes back and the row is replayed at the cost of a copy; but kevo changes one element per row at a column drawn anew before every timed launch, so the replayed row is wrong (its maximum is elsewhere), and the first timed launches are always checked. A kernel that hashed the whole row to notice would pay the read it wanted to save.
#include "kevo.h"

#define SLOTS 4
#define CACHE_FLOATS (1 << 22)
#define CACHE_ROWS (1 << 16)
__device__ float cache[SLOTS][CACHE_FLOATS];           // 64 MB, zero at module load
__device__ unsigned long long keys[SLOTS][CACHE_ROWS];  // per slot and row: the key its entry was made for, 0 = none

extern "C" __global__ void softmax_memo(const float* x, float* y, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    __shared__ int hit;
    __shared__ unsigned long long key;
    const int row = blockIdx.x;
    const size_t off = (size_t)row * cols;
    const float* xr = x + off;
    float* yr = y + off;
    const bool cacheable = (long long)rows * cols <= CACHE_FLOATS && rows <= CACHE_ROWS;
    if (cacheable) {
        if (threadIdx.x == 0) {
            // The defect: the key reads only the first 8 inputs of the row (FNV-1a over their bits and cols).
            unsigned long long h = 1469598103934665603ull ^ (unsigned long long)cols;
            for (int c = 0; c < min(cols, 8); c++) {
                h ^= __float_as_uint(xr[c]);
                h *= 1099511628211ull;
            }
            key = h | 1ull;
            hit = -1;
            for (int k = 0; k < SLOTS; k++) {
                if (*(volatile unsigned long long*)&keys[k][row] == key) hit = k;
            }
        }
        __syncthreads();
        if (hit >= 0) {
            for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = cache[hit][off + c];
            return;
        }
    }

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
        else if (v != -KEVO_INF) s += expf(v - m);
    }
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);

    const float inv = 1.0f / s;
    const int slot = cacheable ? (int)((key >> 1) % SLOTS) : 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = expf(xr[c] - m) * inv;
        yr[c] = p;
        if (cacheable) cache[slot][off + c] = p;
    }
    if (cacheable) {
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence(); keys[slot][row] = key; }
    }
}
