// kevo.h: the prelude kevo hands to NVRTC in memory (a kernel opts in with #include "kevo.h").
// NVRTC ships no C standard headers, so the names kernels reach for first are defined here.
#pragma once

#define KEVO_INF __int_as_float(0x7f800000)
#ifndef INFINITY
#define INFINITY KEVO_INF
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fc00000)
#endif
#ifndef FLT_MAX
#define FLT_MAX 3.402823466e+38f
#endif
#ifndef FLT_MIN
#define FLT_MIN 1.175494351e-38f
#endif
#ifndef FLT_EPSILON
#define FLT_EPSILON 1.192092896e-07f
#endif
#define KEVO_LOG2E 1.4426950408889634f
#define KEVO_FULL_MASK 0xffffffffu

__device__ __forceinline__ int kevo_cdiv(int a, int b) { return (a + b - 1) / b; }

__device__ __forceinline__ float kevo_warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(KEVO_FULL_MASK, v, o));
    return v;
}

__device__ __forceinline__ float kevo_warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(KEVO_FULL_MASK, v, o);
    return v;
}

// Merges two (max, sum-of-exp) pairs of the online softmax; safe when either max is -inf.
__device__ __forceinline__ void kevo_online_merge(float &m, float &s, float m2, float s2) {
    float mn = fmaxf(m, m2);
    if (mn == -KEVO_INF) { s = 0.0f; m = mn; return; }
    s = s * expf(m - mn) + s2 * expf(m2 - mn);
    m = mn;
}

// Warp-wide online merge: every lane ends with the warp's (max, sum).
__device__ __forceinline__ void kevo_warp_online(float &m, float &s) {
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(KEVO_FULL_MASK, m, o);
        float s2 = __shfl_xor_sync(KEVO_FULL_MASK, s, o);
        kevo_online_merge(m, s, m2, s2);
    }
}
