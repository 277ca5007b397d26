/*@kevo
{
  "description": "adversarial: online softmax whose per-thread chunk is 'autotuned' at compile time by 4096 separate constexpr simulations",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_tuned", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_tuned", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect compile-timeout
// why: each of the 4096 leaves of tune<0, 4096> is its own constant evaluation of an 800000-step loop (just under the front end's constexpr complexity limit), about 0.15 s each: about 10 minutes of NVRTC front end in little memory, far over kevo's 20 s compile limit.
#include "kevo.h"

// An LCG run for n steps: 800000 stays just under the front end's "constexpr function call complexity" limit.
__device__ constexpr unsigned long long simulate(unsigned long long n, unsigned long long seed) {
    unsigned long long a = seed;
    for (unsigned long long i = 0; i < n; ++i) a = a * 6364136223846793005ull + i;
    return a;
}

// The defect: 4096 leaves, each a separate constexpr evaluation (a binary tree keeps instantiation depth at 12).
template <unsigned Lo, unsigned Hi>
__device__ __forceinline__ unsigned long long tune() {
    if constexpr (Hi - Lo == 1) {
        constexpr unsigned long long score = simulate(800000, Lo);
        return score;
    } else {
        return tune<Lo, (Lo + Hi) / 2>() ^ tune<(Lo + Hi) / 2, Hi>();
    }
}

extern "C" __global__ void softmax_tuned(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const int chunk = 1 << (int)(tune<0, 4096>() % 4);  // 1, 2, 4 or 8 consecutive elements per thread step
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;

    float m = -KEVO_INF, s = 0.0f;
    for (int base = threadIdx.x * chunk; base < cols; base += blockDim.x * chunk) {
        for (int k = 0; k < chunk && base + k < cols; ++k) {
            const float v = xr[base + k];
            if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
            else if (v != -KEVO_INF) s += expf(v - m);
        }
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
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}
