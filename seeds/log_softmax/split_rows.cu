/*@kevo
{
  "op": "log_softmax",
  "description": "split rows: each row cut into chunks of CHUNK columns, a block a chunk; one launch writes each chunk's online (max, sum) to the workspace, a second merges the row's chunks in every block and writes its chunk as x - max - log(sum) (two reads of x, every SM busy however few the rows)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "workspace": "rows * cdiv(cols, CHUNK) * 8",
  "knobs": {
    "CHUNK": { "values": [1024, 2048, 4096, 8192, 16384], "value": 4096, "about": "columns a block takes" },
    "BLOCK": { "values": [128, 256, 512, 1024], "value": 256, "about": "threads per block" }
  },
  "plans": [
    { "when": "true",
      "launches": [ { "kernel": "chunk_stats", "grid": "rows * cdiv(cols, CHUNK)", "block": "BLOCK", "args": ["x", "ws", "cols", "CHUNK"] },
                    { "kernel": "chunk_write", "grid": "rows * cdiv(cols, CHUNK)", "block": "BLOCK", "args": ["x", "y", "ws", "cols", "CHUNK"] } ] }
  ]
}
*/
#include "kevo.h"

// ws: per row, its chunks' (max, sum of exp(x - max)) as float2, chunk by chunk.

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// The block's (max, sum) in every thread (a multiple of 32 threads): per-warp pairs folded by every warp.
__device__ __forceinline__ void block_online(float& m, float& s) {
    __shared__ float sm[32], ss[32];
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
}

extern "C" __global__ void chunk_stats(const KEVO_X* x, float2* ws, int cols, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / chunks;
    const int begin = (int)(blockIdx.x % chunks) * chunk, end = min(begin + chunk, cols);
    const KEVO_X* xr = x + row * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = begin + threadIdx.x; c < end; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));
    block_online(m, s);
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(m, s);
}

extern "C" __global__ void chunk_write(const KEVO_X* x, KEVO_Y* y, const float2* ws, int cols, int chunk) {
    const int chunks = kevo_cdiv(cols, chunk);
    const long long row = blockIdx.x / chunks;
    const int begin = (int)(blockIdx.x % chunks) * chunk, end = min(begin + chunk, cols);
    // Every block of the row merges the row's chunk pairs (a chunk of only -inf adds (-inf, 0), which merges safely).
    float m = -KEVO_INF, s = 0.0f;
    for (int k = threadIdx.x; k < chunks; k += blockDim.x) {
        const float2 p = ws[row * chunks + k];
        kevo_online_merge(m, s, p.x, p.y);
    }
    block_online(m, s);
    // x - max first, then the log of the sum (s >= 1: the row max contributes expf(0)): -inf stays -inf, and a row of
    // one repeated value gives -log(cols). Never the log of a probability, which underflows.
    const float log_sum = logf(s);
    const KEVO_X* xr = x + row * cols;
    KEVO_Y* yr = y + row * cols;
    for (int c = begin + threadIdx.x; c < end; c += blockDim.x) {
        yr[c] = kevo_from_float<KEVO_Y>((kevo_to_float(xr[c]) - m) - log_sum);
    }
}
