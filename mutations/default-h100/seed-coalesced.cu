/*@kevo
{
  "description": "coalesced: block per row, strided coalesced loops, shared-memory tree reductions, three reads of the row",
  "plans": [
    { "when": "cols <= 512",
      "launches": [ { "kernel": "softmax_coalesced", "grid": "rows", "block": 128, "smem": "128 * 4",
                      "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_coalesced", "grid": "rows", "block": 256, "smem": "256 * 4",
                      "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_coalesced", "grid": "rows", "block": 1024, "smem": "1024 * 4",
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
