/*@kevo
{
  "description": "adversarial: block-per-row softmax that reads each element of x once, under an L2 evict_last policy, hoping its rows outlive kevo's L2 flush",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_hinted_staged", "grid": "rows", "block": 256, "smem": "cols * 4", "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 50257",
      "launches": [ { "kernel": "softmax_hinted_staged", "grid": "rows", "block": 1024, "smem": "cols * 4", "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_hinted_two_pass", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect pass
// why: the only difference from l2_plain.cu is the load: createpolicy.fractional.L2::evict_last + ld.global.L2::cache_hint. Such lines outlived a flush that read at normal priority (7% on 256x4096 in issue 15); kevo now demotes every L2 line of what the candidate can address (its input set, y, the workspace) to evict_normal after each of its launches, so the next flush removes them, and the hint buys nothing: correct, pass, and bench/experiments/l2_pair.py times the two side by side.
#include "kevo.h"

// x is loaded under an evict_last policy: L2 keeps these lines over evict_normal ones.
__device__ __forceinline__ unsigned long long x_policy() {
    unsigned long long p;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
    return p;
}
__device__ __forceinline__ float load_x(const float* p, unsigned long long policy) {
    float v;
    asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
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
extern "C" __global__ void softmax_hinted_staged(const float* x, float* y, int cols) {
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
extern "C" __global__ void softmax_hinted_two_pass(const float* x, float* y, int cols) {
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
