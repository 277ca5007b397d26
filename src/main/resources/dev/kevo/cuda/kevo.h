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

// Thread-block clusters (sm_90 and later). A launch with "cluster": N runs its blocks in groups of N consecutive
// blocks that are resident at once and can read each other's shared memory. Below sm_90 every block is a cluster of
// one, so the same source compiles everywhere; only a launch with N > 1 needs the hardware.
__device__ __forceinline__ unsigned kevo_cluster_size() {
#if __CUDA_ARCH__ >= 900
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
#else
    return 1;
#endif
}

// This block's index within its cluster, 0 to kevo_cluster_size() - 1.
__device__ __forceinline__ unsigned kevo_cluster_rank() {
#if __CUDA_ARCH__ >= 900
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
#else
    return 0;
#endif
}

// The cluster barrier in two halves. Every thread of every block of the cluster must call both. Writes to shared
// memory before arrive are visible to peers after their wait (arrive releases, wait acquires). A block must not
// exit while a peer may still read its shared memory: arrive once done reading, and wait before exiting.
__device__ __forceinline__ void kevo_cluster_arrive() {
#if __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ void kevo_cluster_wait() {
#if __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ void kevo_cluster_sync() {
    kevo_cluster_arrive();
    kevo_cluster_wait();
}

// The 32-bit shared-memory address of a __shared__ (or extern __shared__) object of this block.
__device__ __forceinline__ unsigned kevo_shared_addr(const void* p) {
    unsigned long long a;
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
    return (unsigned)a;
}

#if __CUDA_ARCH__ >= 900
// The cluster-wide shared-memory address of the object at p (a __shared__ variable of this kernel) in block `rank`.
__device__ __forceinline__ unsigned kevo_cluster_addr(const void* p, unsigned rank) {
    unsigned a;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(kevo_shared_addr(p)), "r"(rank));
    return a;
}
#endif

// Reads the object at p (a __shared__ variable of this kernel) as it is in block `rank` of this cluster.
__device__ __forceinline__ float kevo_cluster_ld_f32(const float* p, unsigned rank) {
    float v;
#if __CUDA_ARCH__ >= 900
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(kevo_cluster_addr(p, rank)) : "memory");
#else
    v = *p;
#endif
    return v;
}

__device__ __forceinline__ float2 kevo_cluster_ld_f2(const float2* p, unsigned rank) {
    float2 v;
#if __CUDA_ARCH__ >= 900
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y)
                 : "r"(kevo_cluster_addr(p, rank)) : "memory");
#else
    v = *p;
#endif
    return v;
}

// One value (float or float2) from each block of a cluster to every block, as a row's statistic is combined across
// a cluster. Declare one `__shared__ KevoClusterExchange<T>` in the kernel; every thread of every block calls begin()
// early, exchange(v) once with its block's value (the same in every thread; clusters of 2 to 16 blocks, blocks of 16
// threads or more), get(r) for rank r's value, done() after its last get, and finish() before it exits.
// With st.async (PTX 8.1: CUDA 12.1 and later), each block pushes its value into every peer's slot and waits on its
// own mbarrier for the peers' bytes. The barrier-based exchange it replaces publishes the value with a release of the
// cluster barrier, which sm_90 executes as a GPU-scope memory fence that every thread waits on; the push needs no
// fence, and begin()'s relaxed arrival (the peers' mbarriers are ready) is long complete when exchange() waits on it.
// Older compilers take that barrier-based exchange.
#if __CUDA_ARCH__ >= 900 && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 1))
#define KEVO_CLUSTER_PUSH 1
#endif

template <class T> struct KevoClusterExchange {
    T slot[16];  // rank r's value at r: pushed here, or (barrier-based) read from block r's own slot
    unsigned long long bar;

    __device__ __forceinline__ void begin() {
#ifdef KEVO_CLUSTER_PUSH
        if (kevo_cluster_size() > 1) {
            if (threadIdx.x == 0) {
                asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(kevo_shared_addr(&bar)) : "memory");
                asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
            }
            asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
        }
#endif
    }

    __device__ __forceinline__ void exchange(T v) {
        const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
#ifdef KEVO_CLUSTER_PUSH
        kevo_cluster_wait();  // every block's mbarrier is initialized
        const unsigned b = kevo_shared_addr(&bar);
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b),
                         "r"(size * (unsigned)sizeof(T)) : "memory");
        }
        if (threadIdx.x < size) push(kevo_cluster_addr(&slot[rank], threadIdx.x), v, kevo_cluster_addr(&bar, threadIdx.x));
        unsigned complete = 0;
        while (!complete) {
            asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                         " selp.u32 %0, 1, 0, p;\n}" : "=r"(complete) : "r"(b) : "memory");
        }
#else
        if (threadIdx.x == 0) slot[rank] = v;
        kevo_cluster_sync();
#endif
    }

    __device__ __forceinline__ T get(unsigned r) const {
#ifdef KEVO_CLUSTER_PUSH
        return slot[r];
#else
        return read(&slot[r], r);
#endif
    }

    __device__ __forceinline__ void done() {
#ifndef KEVO_CLUSTER_PUSH
        kevo_cluster_arrive();  // done reading the peers' slots
#endif
    }

    __device__ __forceinline__ void finish() {
#ifndef KEVO_CLUSTER_PUSH
        if (kevo_cluster_size() > 1) kevo_cluster_wait();  // no peer still reads this block's slot
#endif
    }

private:
#ifdef KEVO_CLUSTER_PUSH
    static __device__ __forceinline__ void push(unsigned at, float v, unsigned peer_bar) {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                     :: "r"(at), "r"(__float_as_uint(v)), "r"(peer_bar) : "memory");
    }
    static __device__ __forceinline__ void push(unsigned at, float2 v, unsigned peer_bar) {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                     :: "r"(at), "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)), "r"(peer_bar) : "memory");
    }
#else
    static __device__ __forceinline__ float read(const float* p, unsigned r) { return kevo_cluster_ld_f32(p, r); }
    static __device__ __forceinline__ float2 read(const float2* p, unsigned r) { return kevo_cluster_ld_f2(p, r); }
#endif
};

// Copies 16 bytes from global to shared memory without passing through registers (sm_80 and later); nothing is read
// when `valid` is false (the 16 shared bytes become zero). dst and src must be 16-byte aligned.
// kevo_cp_async_wait() waits for every copy this thread issued.
__device__ __forceinline__ void kevo_cp_async16(void* dst, const void* src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(kevo_shared_addr(dst)), "l"(src),
                 "r"(valid ? 16 : 0) : "memory");
}

__device__ __forceinline__ void kevo_cp_async_wait() {
    asm volatile("cp.async.wait_all;" ::: "memory");
}

// 16-bit element types, for a task whose dtype is bf16 or fp16 (the file's header says "dtype"). kevo hands NVRTC no
// cuda_bf16.h or cuda_fp16.h, so these are plain 16-bit words with conversions to and from float: arithmetic and
// accumulation stay in float. Rounding to 16 bits is to nearest even, as torch rounds.
struct __align__(2) kevo_bf16 { unsigned short bits; };
struct __align__(2) kevo_half { unsigned short bits; };

__device__ __forceinline__ float kevo_to_float(float v) { return v; }
__device__ __forceinline__ float kevo_to_float(kevo_bf16 v) { return __uint_as_float((unsigned)v.bits << 16); }
__device__ __forceinline__ float kevo_to_float(kevo_half v) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
    return f;
}

// float to T (float, kevo_bf16 or kevo_half), rounded to nearest even.
template <class T> __device__ __forceinline__ T kevo_from_float(float f);
template <> __device__ __forceinline__ float kevo_from_float<float>(float f) { return f; }
template <> __device__ __forceinline__ kevo_bf16 kevo_from_float<kevo_bf16>(float f) {
    kevo_bf16 r;
#if __CUDA_ARCH__ >= 800
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(f));
#else
    const unsigned u = __float_as_uint(f);
    r.bits = (u & 0x7fffffffu) > 0x7f800000u ? (unsigned short)((u >> 16) | 0x40u)
                                             : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
    return r;
}
template <> __device__ __forceinline__ kevo_half kevo_from_float<kevo_half>(float f) {
    kevo_half r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(f));
    return r;
}

// Eight 16-bit elements in one 16-byte access (p 16-byte aligned): the vector width that reads memory at full speed.
template <class T> __device__ __forceinline__ void kevo_load8(const T* p, float* out) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        out[2 * i] = kevo_to_float(T{(unsigned short)(w[i] & 0xffffu)});
        out[2 * i + 1] = kevo_to_float(T{(unsigned short)(w[i] >> 16)});
    }
}

template <class T> __device__ __forceinline__ void kevo_store8(T* p, const float* v) {
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        w[i] = (unsigned)kevo_from_float<T>(v[2 * i]).bits | ((unsigned)kevo_from_float<T>(v[2 * i + 1]).bits << 16);
    }
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
}
