/*@kevo
{
  "description": "adversarial: row statistics a block per row, then a grid-stride normalisation: float4 where cols % 4 == 0, with 32-bit element offsets and count; scalar elsewhere, with 64-bit ones",
  "workspace": "rows * 8",
  "plans": [
    { "when": "cols % 4 == 0",
      "launches": [ { "kernel": "row_stats", "grid": "rows", "block": 512, "args": ["x", "ws", "cols"] },
                    { "kernel": "normalise4", "grid": "min(cdiv(rows * cols, 1024), sms * 8)", "block": 256,
                      "args": ["x", "y", "ws", "rows", "cols"] } ] },
    { "launches": [ { "kernel": "row_stats", "grid": "rows", "block": 512, "args": ["x", "ws", "cols"] },
                    { "kernel": "normalise", "grid": "min(cdiv(rows * cols, 256), sms * 8)", "block": 256,
                      "args": ["x", "y", "ws", "rows", "cols"] } ] }
  ]
}
*/
// @expect unwritten-output
// @eval --at-scale
// why: below 2^31 elements both plans are right, so every suite, fresh and held-out shape passes; the one at-scale shape judged before (16385x131073) has odd columns and takes the scalar plan, whose 64-bit offsets are right there. At scale every plan is now judged past 2^31 elements on a shape that reaches it, aligned (even rows, cols % 4 == 0) and unaligned: the aligned one takes the float4 plan, whose element count rows * cols wraps in an int (negative just past 2^31, short of the true count past 2^32), so its loop, bounded by that count, leaves the outputs past it unwritten (all of them just past 2^31), with kevo's poison in them.
#include "kevo.h"

// ws[row] = (row max, 1 / sum of exp(x - max)); the row offset is 64-bit here, and each thread's running sum is a
// double, so rows of tens of millions of columns lose no precision.
extern "C" __global__ void row_stats(const float* x, float2* ws, int cols) {
    __shared__ float sm[32], ss[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float m = -KEVO_INF;
    double sd = 0.0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        if (v > m) { sd = sd * expf(m - v) + 1.0; m = v; }
        else if (v != -KEVO_INF) sd += expf(v - m);
    }
    float s = (float)sd;
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        const bool live = lane < (int)(blockDim.x >> 5);
        m = live ? sm[lane] : -KEVO_INF;
        s = live ? ss[lane] : 0.0f;
        kevo_warp_online(m, s);
        if (lane == 0) ws[blockIdx.x] = make_float2(m, 1.0f / s);
    }
}

// cols % 4 == 0, so rows start 16-byte aligned and four consecutive elements share a row. The defect: the element
// offset and count are ints, as if no matrix had 2^31 elements.
extern "C" __global__ void normalise4(const float* x, float* y, const float2* ws, int rows, int cols) {
    const int total = rows * cols;
    for (int e = (blockIdx.x * blockDim.x + threadIdx.x) * 4; e < total; e += gridDim.x * blockDim.x * 4) {
        const float2 st = ws[e / cols];
        const float4 v = *reinterpret_cast<const float4*>(x + e);
        float4 o;
        o.x = expf(v.x - st.x) * st.y;
        o.y = expf(v.y - st.x) * st.y;
        o.z = expf(v.z - st.x) * st.y;
        o.w = expf(v.w - st.x) * st.y;
        *reinterpret_cast<float4*>(y + e) = o;
    }
}

// Any other row length, one element at a time, with 64-bit offsets: right at any size.
extern "C" __global__ void normalise(const float* x, float* y, const float2* ws, int rows, int cols) {
    const long long total = (long long)rows * cols;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 st = ws[i / cols];
        y[i] = expf(x[i] - st.x) * st.y;
    }
}
