/*@kevo
{
  "op": "cross_entropy",
  "description": "online: the live rows counted by one block; a block per row, one pass of per-thread online (max, sum) merged across the block, then one pass writing g (p - onehot) / n (two reads of x); each row's loss kept in the workspace and summed in a fixed order by one block, so the loss is the same bits on every launch",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "SMALL_BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 128, "about": "threads per row up to SMALL_MAX columns" },
    "LARGE_BLOCK": { "values": [256, 512, 1024], "value": 1024, "about": "threads per row beyond" },
    "SMALL_MAX": { "values": [512, 1024, 2048, 4096], "value": 1024 }
  },
  "workspace": "rows * 4 + 16",
  "plans": [
    { "when": "cols <= SMALL_MAX",
      "launches": [ { "kernel": "ce_count", "grid": 1, "block": 1024, "args": ["labels", "ws", "rows"] },
                    { "kernel": "ce_online", "grid": "rows", "block": "SMALL_BLOCK", "args": ["x", "labels", "dx", "ws", "g", "rows", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 1024, "args": ["ws", "loss", "rows"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "ce_count", "grid": 1, "block": 1024, "args": ["labels", "ws", "rows"] },
                    { "kernel": "ce_online", "grid": "rows", "block": "LARGE_BLOCK", "args": ["x", "labels", "dx", "ws", "g", "rows", "cols"] },
                    { "kernel": "ce_finish", "grid": 1, "block": 1024, "args": ["ws", "loss", "rows"] } ] }
  ]
}
*/
#include "kevo.h"

#define IGNORE_INDEX (-100ll)

// The workspace: each row's loss at ws[r] (0 for an ignored row), then the live rows n as an int at ws[rows]. Every
// launch of the plan writes what it reads: the workspace holds nothing from an earlier one.

// A block-wide sum of an int over a multiple of 32 threads; every thread gets it.
__device__ __forceinline__ int block_count(int n, int* warps) {
    for (int o = 16; o > 0; o >>= 1) n += __shfl_xor_sync(KEVO_FULL_MASK, n, o);
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = n;
    __syncthreads();
    int total = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) total += warps[w];
    return total;
}

extern "C" __global__ void ce_count(const long long* labels, float* ws, int rows) {
    __shared__ int warps[32];
    int n = 0;
    for (int r = threadIdx.x; r < rows; r += blockDim.x) n += labels[r] != IGNORE_INDEX;
    n = block_count(n, warps);
    if (threadIdx.x == 0) reinterpret_cast<int*>(ws)[rows] = n;
}

__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// KEVO_X and KEVO_Y: the element types of the dtype judged; the math is float throughout.
extern "C" __global__ void ce_online(const KEVO_X* x, const long long* labels, KEVO_Y* dx, float* ws, float g,
                                     int rows, int cols) {
    __shared__ float sm[32], ss[32];
    const size_t off = (size_t)blockIdx.x * cols;
    const KEVO_X* xr = x + off;
    KEVO_Y* dr = dx + off;
    const long long label = labels[blockIdx.x];
    if (label == IGNORE_INDEX) {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) dr[c] = kevo_from_float<KEVO_Y>(0.0f);
        if (threadIdx.x == 0) ws[blockIdx.x] = 0.0f;
        return;
    }
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));
    // Block must be a multiple of 32 threads (full-mask shuffles).
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
    // (x - m) - log(s), never x - (m + log(s)): m + log(s) absorbs log(s) where m is huge (a row masked with float32's
    // lowest value throughout, whose probabilities are 1 / cols and loss log(cols)). s >= 1: the maximum adds expf(0).
    const float log_s = logf(s);
    const float per = g / (float)reinterpret_cast<const int*>(ws)[rows];  // n >= 1: this row is live
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float p = expf((kevo_to_float(xr[c]) - m) - log_s);
        dr[c] = kevo_from_float<KEVO_Y>(per * (c == label ? p - 1.0f : p));
    }
    if (threadIdx.x == 0) ws[blockIdx.x] = (m - kevo_to_float(xr[label])) + log_s;
}

// The mean of the rows' losses, summed in a fixed order (each thread's rows, then the block's tree): 0 / 0 = NaN where
// no row is live, as torch gives.
extern "C" __global__ void ce_finish(const float* ws, float* loss, int rows) {
    __shared__ float part[1024];
    float s = 0.0f;
    for (int r = threadIdx.x; r < rows; r += blockDim.x) s += ws[r];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) loss[0] = part[0] / (float)reinterpret_cast<const int*>(ws)[rows];
}
