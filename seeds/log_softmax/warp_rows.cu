/*@kevo
{
  "op": "log_softmax",
  "description": "warp rows: a warp per row for rows up to WARP_MAX columns (8 rows a block), a block per row beyond; each one pass of online (max, sum), then x - max - log(sum) (two reads of x)",
  "dtype": ["fp32", "bf16", "fp16", "bf16-fp32"],
  "knobs": {
    "WARP_MAX": { "values": [256, 512, 1024, 2048, 4096], "value": 1024, "about": "longest row a warp takes" },
    "ROWS_PER_BLOCK": { "values": [2, 4, 8, 16, 32], "value": 8, "about": "warps, so rows, per block of the warp plan" },
    "LARGE_BLOCK": { "values": [128, 256, 512, 1024], "value": 512, "about": "threads per row beyond WARP_MAX" }
  },
  "plans": [
    { "when": "cols <= WARP_MAX",
      "launches": [ { "kernel": "log_softmax_warp_rows", "grid": "cdiv(rows, ROWS_PER_BLOCK)", "block": "ROWS_PER_BLOCK * 32", "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true",
      "launches": [ { "kernel": "log_softmax_block_rows", "grid": "rows", "block": "LARGE_BLOCK", "args": ["x", "y", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// Adds one element to a running (max, sum); skipping -inf keeps expf(-inf - -inf) = NaN out.
__device__ __forceinline__ void online_add(float& m, float& s, float v) {
    if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
    else if (v != -KEVO_INF) s += expf(v - m);
}

// One row, walked by `lanes` threads starting at `first` with stride `lanes`, once the row's (max, sum) is known:
// x - max first, then the log of the sum (s >= 1: the row max contributes expf(0)), so a -inf entry gives -inf and a
// row of one repeated value gives -log(cols). Never the log of a probability, which underflows.
__device__ __forceinline__ void write_row(const KEVO_X* xr, KEVO_Y* yr, int cols, int first, int lanes, float m,
                                          float s) {
    const float log_sum = logf(s);
    for (int c = first; c < cols; c += lanes) yr[c] = kevo_from_float<KEVO_Y>((kevo_to_float(xr[c]) - m) - log_sum);
}

// A warp per row: the whole reduction stays in shuffles, and short rows keep every lane busy.
extern "C" __global__ void log_softmax_warp_rows(const KEVO_X* x, KEVO_Y* y, int rows, int cols) {
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;  // the whole warp leaves together: the shuffles below always have 32 lanes
    const int lane = threadIdx.x & 31;
    const KEVO_X* xr = x + row * cols;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = lane; c < cols; c += 32) online_add(m, s, kevo_to_float(xr[c]));
    kevo_warp_online(m, s);
    write_row(xr, y + row * cols, cols, lane, 32, m, s);
}

// A block per row (a multiple of 32 threads): per-warp pairs through shared memory, folded by every warp.
extern "C" __global__ void log_softmax_block_rows(const KEVO_X* x, KEVO_Y* y, int cols) {
    __shared__ float sm[32], ss[32];
    const long long off = (long long)blockIdx.x * cols;
    const KEVO_X* xr = x + off;
    float m = -KEVO_INF, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, kevo_to_float(xr[c]));
    kevo_warp_online(m, s);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x >> 5);
    m = live ? sm[lane] : -KEVO_INF;
    s = live ? ss[lane] : 0.0f;
    kevo_warp_online(m, s);
    write_row(xr, y + off, cols, threadIdx.x, blockDim.x, m, s);
}
