/*@kevo
{
  "description": "block-per-row softmax that reads each element of x once with plain loads: the control for l2_evict_last.cu",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_plain_staged", "grid": "rows", "block": 256, "smem": "cols * 4", "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 50257",
      "launches": [ { "kernel": "softmax_plain_staged", "grid": "rows", "block": 1024, "smem": "cols * 4", "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_plain_two_pass", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect pass
// why: a correct kernel; it exists to be timed beside l2_evict_last.cu (bench/experiments/l2_pair.py), which differs only in the L2 policy of its loads.
#include "kevo.h"

// x is loaded plainly; l2_evict_last.cu makes the same load with an evict_last cache hint.
__device__ __forceinline__ unsigned long long x_policy() { return 0ull; }
__device__ __forceinline__ float load_x(const float* p, unsigned long long) {
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__device__ __forceinline__ void block_online(float& m, float& s, float* sm, float* ss) {
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
}

__device__ __forceinline__ void online_add(float v, float& m, float& s) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// Rows up to 50257 columns: the row is read once into shared memory, then normalised from there.
extern "C" __global__ void softmax_plain_staged(const float* x, float* y, int cols) {
    extern __shared__ float row[];
    __shared__ float sm[32], ss[32];
    const unsigned long long policy = x_policy();
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = load_x(xr + c, policy);
        row[c] = v;
        online_add(v, m, s);
    }
    block_online(m, s, sm, ss);
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(row[c] - m) * inv;
}

// Longer rows (no input set of such shapes fits in L2 with the others): statistics, then a second read of x.
extern "C" __global__ void softmax_plain_two_pass(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const unsigned long long policy = x_policy();
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(load_x(xr + c, policy), m, s);
    block_online(m, s, sm, ss);
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(load_x(xr + c, policy) - m) * inv;
}
