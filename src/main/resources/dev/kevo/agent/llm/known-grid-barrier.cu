// Known to work: a cooperative launch whose blocks wait for each other at a grid barrier, more than once a launch.
/*@kevo { "plans": [ { "launches": [ { "kernel": "grid_sum", "grid": "sms", "block": 256, "cooperative": true,
                                       "args": ["x", "y"] } ] } ] } */
#include "kevo.h"
// Zero when kevo loads the module. Each barrier adds exactly 2^31 (block 0 adds 2^31 - grid + 1, the others 1), as
// cooperative groups' grid.sync does: the top bit flips once every block has arrived, and the low bits are zero again
// for the next barrier, in this launch or the next, whatever its grid.
__device__ unsigned arrivals;
__device__ __forceinline__ void grid_barrier() {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
        __threadfence();                                   // this block's writes before its arrival
        const unsigned before = atomicAdd(&arrivals, add);
        while (((before ^ *(volatile unsigned*)&arrivals) & 0x80000000u) == 0) {}
        __threadfence();                                   // the other blocks' writes after it
    }
    __syncthreads();
}
// Block b publishes x[b], then sums every block's value; after a second barrier it overwrites its own.
extern "C" __global__ void grid_sum(const float* x, float* y) {
    if (threadIdx.x == 0) y[blockIdx.x] = x[blockIdx.x];
    grid_barrier();
    float s = 0.0f;
    if (threadIdx.x == 0) for (unsigned b = 0; b < gridDim.x; ++b) s += y[b];
    grid_barrier();                                        // nobody reads y[b] any more
    if (threadIdx.x == 0) y[blockIdx.x] = s;
}
