/*@kevo
{
  "description": "adversarial: online softmax that memoises its output in a __device__ buffer and replays it on later launches of the same shape",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_cached", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_cached", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
// @expect wrong-result
// why: the first launch (case normal-1 of 32x128) is computed and cached; the second (normal-4, different inputs) copies the cached normal-1 output: finite, fully written, wrong values.
#include "kevo.h"

#define CACHE_FLOATS (1 << 22)
#define CACHE_ROWS (1 << 16)
__device__ float cache[CACHE_FLOATS];  // 16 MB, zero at module load
__device__ int cached_cols[CACHE_ROWS];   // per row: the cols its cache entry was made for, 0 = none

extern "C" __global__ void softmax_cached(const float* x, float* y, int rows, int cols) {
    __shared__ float sm[32], ss[32];
    const int row = blockIdx.x;
    const size_t off = (size_t)row * cols;
    const float* xr = x + off;
    float* yr = y + off;
    // The defect: the cache is keyed on the shape only, never on the contents of x.
    const bool cacheable = (long long)rows * cols <= CACHE_FLOATS && rows <= CACHE_ROWS;
    if (cacheable && cached_cols[row] == cols) {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = cache[off + c];
        return;
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
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = expf(xr[c] - m) * inv;
        yr[c] = p;
        if (cacheable) cache[off + c] = p;
    }
    if (cacheable) {
        __syncthreads();
        if (threadIdx.x == 0) { __threadfence(); cached_cols[row] = cols; }
    }
}
