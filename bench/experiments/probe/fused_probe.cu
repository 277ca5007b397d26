// Where does a one-launch split softmax spend its time? Probe variants side by side (not part of kevo).
#include <cstdio>
#include <vector>
#include <algorithm>
#include "kevo.h"
#include "lib.cuh"  // the built-in agent's device library, rendered by build.sh

__device__ unsigned int bar2_count = 0;
__device__ unsigned int bar2_gen = 0;

__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
    unsigned v; asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ unsigned atom_add_acqrel(unsigned* p, unsigned v) {
    unsigned old; asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory"); return old;
}
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// BAR 0: kevo's barrier, 1: acquire/release PTX, no fences, no sleep, 2: none (wrong results: cost of the rest)
template <int BAR> __device__ __forceinline__ void bar() {
    if constexpr (BAR == 0) { grid_barrier(); }
    else if constexpr (BAR == 1) {
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned seen = ld_acquire(&bar2_gen);
            if (atom_add_acqrel(&bar2_count, 1u) == gridDim.x - 1) {
                bar2_count = 0;
                st_release(&bar2_gen, seen + 1);
            } else {
                while (ld_acquire(&bar2_gen) == seen) { }
            }
        }
        __syncthreads();
    } else { __syncthreads(); }
}

template <class C, int THREADS, int N, int BAR, bool PHASE2 = true>
__global__ void __launch_bounds__(THREADS, 1024 / THREADS) fused(const float* __restrict__ x, float* __restrict__ y, float2* __restrict__ ws, int cols, int chunks) {
    constexpr int V = C::VEC;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const float* xr = x + base; float* yr = y + base;
    const VT* xv = reinterpret_cast<const VT*>(xr + p.head);
    VT* yv = reinterpret_cast<VT*>(yr + p.head);
    float v[N * V];
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) unpack(load<C::LOAD>(xv + q), v + j * V);
        else for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
    }
    float m = -KEVO_INF;
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    const float km = K::key(m), kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
    const Stat part = group_reduce<THREADS, C::REDUCE>(Stat{km, s}, MergeOp<C::EXP>());
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(part.m, part.s);
    bar<BAR>();
    const Stat st = row_stat<C, THREADS>(ws + (long long)row * chunks, chunks);
    const float scale = m == -KEVO_INF ? 0.0f : K::exp_keys(km, st.m) / st.s;
    if (!PHASE2) return;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, pack<V>(v + j * V, scale));
    }
}


__device__ unsigned int tag_done = 0;
__device__ unsigned int tag_gen = 0;

__device__ __forceinline__ float4 ld_volatile4(const float4* p) {
    float4 v;
    asm volatile("ld.volatile.global.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_volatile4(float4* p, float4 v) {
    asm volatile("st.volatile.global.v4.f32 [%0], {%1,%2,%3,%4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

// Tagged slots: each block publishes (max key, sum, launch tag) in one 16-byte store; warp 0 of every block
// polls its row's slots until all carry this launch's tag, merging as it reads. No atomics on the critical path.
template <class C, int THREADS, int N, bool PHASE2 = true>
__global__ void __launch_bounds__(THREADS, 1024 / THREADS) fused_tag(const float* __restrict__ x, float* __restrict__ y, float4* __restrict__ ws, int cols, int chunks) {
    constexpr int V = C::VEC;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    __shared__ Stat row_total;
    const unsigned tag = (ld_acquire(&tag_gen) + 1u) * 2654435761u ^ 0x5bd1e995u;
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const float* xr = x + base; float* yr = y + base;
    const VT* xv = reinterpret_cast<const VT*>(xr + p.head);
    VT* yv = reinterpret_cast<VT*>(yr + p.head);
    float v[N * V];
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) unpack(load<C::LOAD>(xv + q), v + j * V);
        else for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
    }
    float m = -KEVO_INF;
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    const float km = K::key(m), kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
    const Stat part = group_reduce<THREADS, C::REDUCE>(Stat{km, s}, MergeOp<C::EXP>());
    float4* slots = ws + (long long)row * chunks;
    if (threadIdx.x == 0) st_volatile4(slots + k, make_float4(part.m, part.s, __uint_as_float(tag), 0.0f));
    if (threadIdx.x < 32) {
        Stat st = {-KEVO_INF, 0.0f};
        for (int i = threadIdx.x; i < chunks; i += 32) {
            float4 q;
            do { q = ld_volatile4(slots + i); } while (__float_as_uint(q.z) != tag);
            st = MergeOp<C::EXP>()(st, Stat{q.x, q.y});
        }
        st = warp_reduce<32>(st, MergeOp<C::EXP>());
        if (threadIdx.x == 0) {
            row_total = st;
            if (atomicAdd(&tag_done, 1u) == gridDim.x - 1) { tag_done = 0; __threadfence(); atomicAdd(&tag_gen, 1u); }
        }
    }
    __syncthreads();
    const Stat st = row_total;
    const float scale = m == -KEVO_INF ? 0.0f : K::exp_keys(km, st.m) / st.s;
    if (!PHASE2) return;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, pack<V>(v + j * V, scale));
    }
}


__device__ __forceinline__ unsigned cluster_rank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ float2 ld_cluster(const float2* local, unsigned rank) {
    unsigned a = (unsigned)__cvta_generic_to_shared(local), remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(a), "r"(rank));
    float2 v;
    asm volatile("ld.shared::cluster.v2.f32 {%0,%1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(remote) : "memory");
    return v;
}

// A row per cluster of CL blocks: partials exchanged through distributed shared memory, hardware cluster barrier.
template <class C, int THREADS, int N, int CL>
__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, 1) fused_cluster(const float* __restrict__ x, float* __restrict__ y, int cols) {
    constexpr int V = C::VEC;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    __shared__ float2 partial;
    const int row = blockIdx.x / CL, k = cluster_rank();
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, CL);
    const float* xr = x + base; float* yr = y + base;
    const VT* xv = reinterpret_cast<const VT*>(xr + p.head);
    VT* yv = reinterpret_cast<VT*>(yr + p.head);
    float v[N * V];
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) unpack(load<C::LOAD>(xv + q), v + j * V);
        else for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
    }
    float m = -KEVO_INF;
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    const float km = K::key(m), kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
    const Stat part = group_reduce<THREADS, C::REDUCE>(Stat{km, s}, MergeOp<C::EXP>());
    if (threadIdx.x == 0) partial = make_float2(part.m, part.s);
    cluster_sync();
    Stat st = {-KEVO_INF, 0.0f};
    if (threadIdx.x < 32) {
        for (int i = threadIdx.x; i < CL; i += 32) { const float2 q = ld_cluster(&partial, i); st = MergeOp<C::EXP>()(st, Stat{q.x, q.y}); }
        st = warp_reduce<32>(st, MergeOp<C::EXP>());
    }
    __shared__ Stat total;
    if (threadIdx.x == 0) total = st;
    __syncthreads();
    st = total;
    const float scale = m == -KEVO_INF ? 0.0f : K::exp_keys(km, st.m) / st.s;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, pack<V>(v + j * V, scale));
    }
    cluster_sync();  // no block leaves while another may still read its partial
}

__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) b[i] = a[i];
}
__global__ void flush(const float4* buf, long long n, float* sink) {
    float acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) acc += buf[i].x;
    if (acc == 12345.f) *sink = acc;
}
__global__ void empty_kernel() {}
template <int BAR> __global__ void __launch_bounds__(1024, 1) only_barrier() { bar<BAR>(); }

struct Cfg4 { static constexpr int VEC = 4, EXP = EXP_EXP2, LOAD = LOAD_PLAIN, STORE = STORE_PLAIN, REDUCE = REDUCE_SHUFFLE; };
struct Cfg4cs { static constexpr int VEC = 4, EXP = EXP_EXP2, LOAD = LOAD_PLAIN, STORE = STORE_STCS, REDUCE = REDUCE_SHUFFLE; };

int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long flushN = (200ll << 20) / 16;
    float4* fbuf; float* sink; cudaMalloc(&fbuf, flushN * 16); cudaMalloc(&sink, 4); cudaMemset(fbuf, 0, flushN * 16);
    float *x, *y; float2* ws; cudaMalloc(&x, 64 << 20); cudaMalloc(&y, 64 << 20); cudaMalloc(&ws, 1 << 20);
    cudaMemset(x, 0, 64 << 20);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    auto time = [&](const char* name, auto launch) {
        for (int i = 0; i < 20; ++i) launch();
        std::vector<float> t;
        for (int i = 0; i < 200; ++i) {
            flush<<<sms * 4, 512>>>(fbuf, flushN, sink);
            cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end());
        printf("  %-34s median %7.2f us  p10 %7.2f  p90 %7.2f  %s\n", name, t[100], t[20], t[180], cudaGetErrorString(cudaGetLastError()));
    };
    struct Shape { int rows, cols; };
    float4* ws4 = (float4*)ws;
    cudaFuncSetAttribute(fused_cluster<Cfg4, 1024, 2, 16>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaFuncSetAttribute(fused_cluster<Cfg4, 512, 2, 16>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    for (Shape sh : {Shape{8, 128256}, Shape{32, 50257}}) {
        long long n = (long long)sh.rows * sh.cols;
        printf("%dx%d\n", sh.rows, sh.cols);
        time("memcpy D2D", [&] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); });
        int ch2 = 2 * sms / sh.rows;
        time("fused 512x2 N=2 acqrel", [&] { fused<Cfg4, 512, 2, 1><<<sh.rows * ch2, 512>>>(x, y, ws, sh.cols, ch2); });
        time("fused 512x2 N=2 no barrier", [&] { fused<Cfg4, 512, 2, 2><<<sh.rows * ch2, 512>>>(x, y, ws, sh.cols, ch2); });
        if (sh.rows == 8) {
            time("cluster 8 x 1024 N=4", [&] { fused_cluster<Cfg4, 1024, 4, 8><<<sh.rows * 8, 1024>>>(x, y, sh.cols); });
            time("cluster 16 x 1024 N=2", [&] { fused_cluster<Cfg4, 1024, 2, 16><<<sh.rows * 16, 1024>>>(x, y, sh.cols); });
            time("cluster 16 x 512 N=4 (1/SM)", [&] { fused_cluster<Cfg4, 512, 4, 16><<<sh.rows * 16, 512>>>(x, y, sh.cols); });
        } else {
            time("cluster 4 x 1024 N=4", [&] { fused_cluster<Cfg4, 1024, 4, 4><<<sh.rows * 4, 1024>>>(x, y, sh.cols); });
            time("cluster 4 x 512 N=8", [&] { fused_cluster<Cfg4, 512, 8, 4><<<sh.rows * 4, 512>>>(x, y, sh.cols); });
        }
    }
    {
        int rows = 8, cols = 128256;
        std::vector<float> h((size_t)rows * cols);
        for (size_t i = 0; i < h.size(); ++i) h[i] = (float)((i * 2654435761u) % 1000) / 100.0f;
        cudaMemcpy(x, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
        fused_cluster<Cfg4, 1024, 2, 16><<<rows * 16, 1024>>>(x, y, cols);
        cudaMemcpy(h.data(), y, h.size() * 4, cudaMemcpyDeviceToHost);
        for (int r = 0; r < rows; ++r) { double t = 0; for (int c = 0; c < cols; ++c) t += h[(size_t)r * cols + c]; printf("cluster row %d sum %.6f %s\n", r, t, cudaGetErrorString(cudaGetLastError())); }
    }
    return 0;
}
