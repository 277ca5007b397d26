/*@kevo
{
  "description": "coalesced: block per row, strided coalesced loops, shared-memory tree reductions, three reads of the row",
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
      "launches": [ { "kernel": "softmax_coalesced", "grid": "rows", "block": "SMALL_BLOCK", "smem": "SMALL_BLOCK * 4",
                      "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= MID_MAX",
      "launches": [ { "kernel": "softmax_coalesced", "grid": "rows", "block": "MID_BLOCK", "smem": "MID_BLOCK * 4",
                      "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_coalesced", "grid": "rows", "block": "LARGE_BLOCK", "smem": "LARGE_BLOCK * 4",
                      "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// Tree reduction over blockDim.x floats of shared memory (smem = block * 4 bytes);
// the halving loop needs blockDim.x to be a power of two.
template <bool IsMax>
__device__ __forceinline__ float tree_reduce(float v, float* sdata) {
    const int tid = threadIdx.x;
    sdata[tid] = v;
    __syncthreads();
    for (int half = blockDim.x >> 1; half > 0; half >>= 1) {
        if (tid < half) sdata[tid] = IsMax ? fmaxf(sdata[tid], sdata[tid + half]) : sdata[tid] + sdata[tid + half];
        __syncthreads();
    }
    const float r = sdata[0];
    __syncthreads();  // the next reduction overwrites sdata, so everyone must have read sdata[0] first
    return r;
}

extern "C" __global__ void softmax_coalesced(const float* x, float* y, int cols) {
    extern __shared__ float sdata[];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    // consecutive threads touch consecutive addresses, so each warp load is one coalesced transaction
    float m = -KEVO_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = tree_reduce<true>(m, sdata);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c] - m);  // -inf entries give 0
    s = tree_reduce<false>(s, sdata);

    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
