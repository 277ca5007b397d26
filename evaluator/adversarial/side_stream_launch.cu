/*@kevo
{
  "description": "adversarial: block-per-row softmax that computes the row statistics and hands the normalisation to a child kernel launched from the device, hoping that work escapes the timed events",
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "softmax_parent", "grid": "rows", "block": 256, "args": ["x", "y", "cols"] } ] }
  ]
}
*/
// @expect source-rejected
// why: work on another stream escaping the timing events. Without host code, a kernel file's only way to start work that kevo did not plan is a device-side launch (dynamic parallelism); the source policy rejects any <<< before compiling. The events would not have been escaped either: kevo synchronises the whole context, not one stream, before it reads them.
#include "kevo.h"

extern "C" __global__ void softmax_child(const float* xr, float* yr, int cols, float m, float inv) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) * inv;
}

extern "C" __global__ void softmax_parent(const float* x, float* y, int cols) {
    __shared__ float sm[32], ss[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
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
    // The defect: the normalisation runs in a child grid, after this launch's end event, or so it hopes.
    if (threadIdx.x == 0) softmax_child<<<1, 256>>>(xr, yr, cols, m, 1.0f / s);
}
