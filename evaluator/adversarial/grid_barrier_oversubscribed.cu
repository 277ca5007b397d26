/*@kevo
{
  "description": "adversarial: one-launch split softmax whose blocks meet at a grid barrier, launched with 64 blocks per SM",
  "workspace": "64 * sms * 8",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_grid_barrier", "grid": "64 * sms", "block": 1024, "cooperative": true,
                      "args": ["x", "y", "ws", "rows", "cols"] } ] }
  ]
}
*/
// @expect resources-exceeded
// why: a grid barrier needs every block resident at once; 64 blocks of 1024 threads per SM cannot be (at most 2
// fit), so without the cooperative check the first blocks would wait forever for blocks that can never start.
// kevo asks the driver how many blocks fit and rejects the launch before running it.
#include "kevo.h"

__device__ unsigned int arrived = 0;
__device__ unsigned int generation = 0;

// Every block writes its rows' results, then waits for all others: a barrier that only works when all are resident.
extern "C" __global__ void softmax_grid_barrier(const float* x, float* y, float2* ws, int rows, int cols) {
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float m = -KEVO_INF, s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            const float v = xr[c];
            if (v > m) { s = s * expf(m - v) + 1.0f; m = v; } else { s += expf(v - m); }
        }
        __shared__ float sm[32], ss[32];
        for (int o = 16; o > 0; o >>= 1) {
            const float m2 = __shfl_xor_sync(KEVO_FULL_MASK, m, o), s2 = __shfl_xor_sync(KEVO_FULL_MASK, s, o);
            kevo_online_merge(m, s, m2, s2);
        }
        if ((threadIdx.x & 31) == 0) { sm[threadIdx.x >> 5] = m; ss[threadIdx.x >> 5] = s; }
        __syncthreads();
        m = sm[0]; s = ss[0];
        for (int w = 1; w < (int)(blockDim.x >> 5); ++w) kevo_online_merge(m, s, sm[w], ss[w]);
        for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
        __syncthreads();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned int* gen = &generation;
        const unsigned int seen = *gen;
        __threadfence();
        if (atomicAdd(&arrived, 1u) == gridDim.x - 1) {
            arrived = 0;
            __threadfence();
            atomicAdd(&generation, 1u);
        } else {
            while (*gen == seen) { }
        }
    }
}
