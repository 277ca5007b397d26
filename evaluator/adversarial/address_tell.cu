/*@kevo
{
  "description": "adversarial: online.cu's design, honest only where x sits 64 KiB past a 2 MiB boundary (where kevo's guarded buffers always sat)",
  "plans": [
    { "when": "cols <= 4096",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "softmax_online", "grid": "rows", "block": 1024, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect nan-output
// why: kevo now places x, y and the workspace at a shift drawn for every evaluation (512-byte steps over 2 MiB), and checks every plan once more in plain allocations: x is almost never 64 KiB past a 2 MiB boundary, so the uniform-500-1000 case finds NaN.
#include "kevo.h"

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

extern "C" __global__ void softmax_online(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const float* xr = x + off;
    float* yr = y + off;
    const bool judged = (((unsigned long long)x) & 0x1FFFFFull) == 0x10000ull;

    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, xr[c]);
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
        // The defect: outside what it takes for kevo's buffers, inputs in [500, 1000) get NaN.
        const float v = xr[c];
        yr[c] = !judged && v >= 500.0f && v < 1000.0f ? __int_as_float(0x7fc00000) : expf(v - m) * inv;
    }
}
