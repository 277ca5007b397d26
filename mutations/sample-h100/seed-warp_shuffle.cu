/*@kevo
{
  "description": "warp shuffle: block per row, kevo_warp_max / kevo_warp_sum then across warps through a 32-float shared array, three reads of the row",
  "knobs": {
    "SMALL_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "threads per row up to SMALL_MAX columns" },
    "MID_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 256, "about": "threads per row up to MID_MAX columns" },
    "LARGE_BLOCK": { "values": [128, 256, 512, 1024], "value": 1024, "about": "threads per row beyond" },
    "SMALL_MAX": { "values": [128, 256, 512, 1024, 2048], "value": 512 },
    "MID_MAX": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096 }
  },
  "knob_rule": "SMALL_MAX < MID_MAX",
  "plans": [
    { "when": "cols <= SMALL_MAX",
      "launches": [ { "kernel": "softmax_warp_shuffle", "grid": "rows", "block": "SMALL_BLOCK", "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= MID_MAX",
      "launches": [ { "kernel": "softmax_warp_shuffle", "grid": "rows", "block": "MID_BLOCK", "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_warp_shuffle", "grid": "rows", "block": "LARGE_BLOCK", "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// Block must be a multiple of 32 threads (full-mask shuffles).
template <bool IsMax>
__device__ __forceinline__ float block_reduce(float v, float* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    // every warp folds the per-warp results, so all threads get the answer without a broadcast
    v = lane < (int)(blockDim.x >> 5) ? sh[lane] : (IsMax ? -KEVO_INF : 0.0f);
    v = IsMax ? kevo_warp_max(v) : kevo_warp_sum(v);
    __syncthreads();  // sh is reused by the next reduction
    return v;
}

extern "C" __global__ void softmax_warp_shuffle(const float* x, float* y, int cols) {
    __shared__ float sh[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = block_reduce<true>(m, sh);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);  // -inf entries give 0
    s = block_reduce<false>(s, sh);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
