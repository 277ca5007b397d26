// Known to work: thread-block clusters. ClusterGpuTest compiles this file with NVRTC and kevo.h and launches it in
// clusters of 4 on a GPU: every block publishes a value, and after the cluster barrier every block reads all of its
// cluster's values from their shared memory. (A plan launches it with "cluster": 4 and a grid a multiple of 4.)
#include "kevo.h"
extern "C" __global__ void peers(const float* x, float* out, int n) {
    __shared__ float mine;
    __shared__ float4 staged[64];
    kevo_cp_async16(&staged[threadIdx.x], x + 4 * (blockIdx.x * 32 + threadIdx.x), threadIdx.x < 32);
    kevo_cp_async_wait();
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    if (threadIdx.x == 0) mine = rank * 10.0f + staged[0].x;
    kevo_cluster_sync();
    if (threadIdx.x < size) {
        out[blockIdx.x * 16 + threadIdx.x] = kevo_cluster_ld_f32(&mine, threadIdx.x);
    }
    if (threadIdx.x == 0) out[blockIdx.x * 16 + 15] = size;
    kevo_cluster_arrive();
    kevo_cluster_wait();
}
