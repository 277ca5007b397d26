// Known to work: __launch_bounds__, float4 loads and stores on rows not 16-byte aligned, PTX cache hints (sm_80+).
/*@kevo { "plans": [ { "launches": [ { "kernel": "copy_rows", "grid": "rows", "block": 256,
                                       "args": ["x", "y", "cols"] } ] } ] } */
#include "kevo.h"
// Read once: the non-coherent path, no L1 line, and the L2 line among the first to go.
__device__ __forceinline__ float4 load_once(const float4* p, unsigned long long policy) {
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
    return v;
}
// Written once, never read here again: a streaming store.
__device__ __forceinline__ void store_once(float4* p, float4 v) {
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
}
// A block copies its row, y = x. The compiler budgets registers for 256 threads a block; a launch of more is refused.
extern "C" __global__ void __launch_bounds__(256) copy_rows(const float* x, float* y, int cols) {
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    const long long base = (long long)blockIdx.x * cols;
    // x and y are 16-byte aligned, so row r starts (r * cols) % 4 floats past a boundary, in both: scalars up to the
    // boundary, float4s, then the scalars left.
    const int t = threadIdx.x, head = min(cols, (int)((4 - base % 4) % 4)), body = (cols - head) / 4;
    if (t < head) y[base + t] = x[base + t];
    const float4* xv = reinterpret_cast<const float4*>(x + base + head);
    float4* yv = reinterpret_cast<float4*>(y + base + head);
    for (int i = t; i < body; i += blockDim.x) store_once(yv + i, load_once(xv + i, policy));
    const long long tail = base + head + 4 * body + t;
    if (tail < base + cols) y[tail] = x[tail];
}
