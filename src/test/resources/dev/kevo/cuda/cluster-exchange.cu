// kevo.h's KevoClusterExchange in use: every block of a cluster gives a float and a float2 and writes all of its
// cluster's, in rank order, to out[block * 48 ...] (floats at 0, the pairs' x at 16 and y at 32). Launched with a
// cluster of 2 to 16 blocks of at least 16 threads.
#include "kevo.h"
extern "C" __global__ void exchange(float* out) {
    __shared__ KevoClusterExchange<float> one;
    __shared__ KevoClusterExchange<float2> two;
    one.begin();
    two.begin();
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    one.exchange(blockIdx.x * 10.0f + rank);
    two.exchange(make_float2(-(float)blockIdx.x, 0.5f * blockIdx.x));
    if (threadIdx.x < size) {
        float* o = out + blockIdx.x * 48;
        o[threadIdx.x] = one.get(threadIdx.x);
        const float2 v = two.get(threadIdx.x);
        o[16 + threadIdx.x] = v.x;
        o[32 + threadIdx.x] = v.y;
    }
    one.done();
    two.done();
    one.finish();
    two.finish();
}
