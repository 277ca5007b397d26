// Known to work: thread-block clusters (sm_90), cp.async, and reading the other blocks' shared memory in a cluster.
/*@kevo { "plans": [ { "launches": [ { "kernel": "peers", "grid": "rows * 4", "block": 64, "cluster": 4,
                                       "args": ["x", "y"] } ] } ] } */
#include "kevo.h"
// Each block stages its input, publishes a value, and after the cluster barrier reads all of its cluster's values.
extern "C" __global__ void peers(const float* x, float* out) {
    __shared__ float mine;
    __shared__ float4 staged[64];
    kevo_cp_async16(&staged[threadIdx.x], x + 4 * (blockIdx.x * 32 + threadIdx.x), threadIdx.x < 32);
    kevo_cp_async_wait();
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    if (threadIdx.x == 0) mine = rank * 10.0f + staged[0].x;
    kevo_cluster_sync();                                   // every block's value is published
    if (threadIdx.x < size) out[blockIdx.x * 16 + threadIdx.x] = kevo_cluster_ld_f32(&mine, threadIdx.x);
    if (threadIdx.x == 0) out[blockIdx.x * 16 + 15] = size;
    kevo_cluster_arrive();                                 // done reading the peers
    kevo_cluster_wait();                                   // no peer still reads this block's value
}
