// Where does the one-launch split softmax spend its time? The champion's split_fused with %globaltimer stamps at
// its phase boundaries (not part of kevo). Written against the library before the one-round-trip barrier; it now
// uses the barrier of the library it is built with (grid_barrier_target / grid_barrier(target)). Build: bench/experiments/probe/build-phases.sh; run ./phases on the GPU host.
#include <cstdio>
#include <vector>
#include <algorithm>
#include "kevo.h"
#include "lib.cuh"  // the champion's device library (bench/results/champion-default-h100.cu without its header)

__device__ __forceinline__ unsigned long long now() {
    unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
enum { T_ENTRY, T_LOADED, T_REDUCED, T_RELEASED, T_END, T_COUNT };
#define STAMP(i) do { __syncthreads(); if (threadIdx.x == 0) stamps[blockIdx.x * T_COUNT + (i)] = now(); } while (0)

template <class C, int THREADS, int N, int S>
__global__ void __launch_bounds__(THREADS, 2) phased(const float* __restrict__ x, float* __restrict__ y,
        float2* __restrict__ ws, int cols, int chunks, unsigned long long* stamps) {
    constexpr int V = C::VEC;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    if (threadIdx.x == 0) stamps[blockIdx.x * T_COUNT + T_ENTRY] = now();
    const unsigned long long target = grid_barrier_target();
    extern __shared__ __align__(16) unsigned char kevo_dynamic_smem[];
    VT* held = reinterpret_cast<VT*>(kevo_dynamic_smem);
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const float* xr = x + base;
    float* yr = y + base;
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
#pragma unroll 4
    for (int j = 0; j < S; ++j) {
        const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
        if (q < c.q1) {
            const VT w = load<C::LOAD>(xv + q);
            held[j * THREADS + threadIdx.x] = w;
            float u[V]; unpack(w, u);
            for (int e = 0; e < V; ++e) m = fmaxf(m, u[e]);
        }
    }
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    STAMP(T_LOADED);
    const float km = K::key(m);
    const float kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
#pragma unroll 4
    for (int j = 0; j < S; ++j) {
        if (c.q0 + threadIdx.x + (N + j) * THREADS < c.q1) {
            float u[V]; unpack(held[j * THREADS + threadIdx.x], u);
            for (int e = 0; e < V; ++e) s += K::exp_from(u[e], kr);
        }
    }
    const Stat part = group_reduce<THREADS, C::REDUCE>(Stat{km, s}, MergeOp<C::EXP>());
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(part.m, part.s);
    STAMP(T_REDUCED);
    grid_barrier(target);
    const Stat st = row_stat<C, THREADS>(ws + (long long)row * chunks, chunks);
    const float scale = m == -KEVO_INF ? 0.0f : K::exp_keys(km, st.m) / st.s;
    STAMP(T_RELEASED);
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, pack<V>(v + j * V, scale));
    }
#pragma unroll 4
    for (int j = 0; j < S; ++j) {
        const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
        if (q < c.q1) {
            float u[V]; unpack(held[j * THREADS + threadIdx.x], u);
            for (int e = 0; e < V; ++e) u[e] = K::exp_from(u[e], kr);
            store<C::STORE>(yv + q, pack<V>(u, scale));
        }
    }
    STAMP(T_END);
}

__device__ __forceinline__ float fast_exp2(float a) {
    float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a)); return r;
}

// Variant: exponentials by ex2.approx (one MUFU op, no range fix-up), computed once: the shared part's exps go back
// to shared memory for the write. SPLIT: the block max first, then plain sums (no (max, sum) merges in the reduce).
template <class C, int THREADS, int N, int S, bool SPLIT>
__global__ void __launch_bounds__(THREADS, 2) phased_fast(const float* __restrict__ x, float* __restrict__ y,
        float2* __restrict__ ws, int cols, int chunks, unsigned long long* stamps) {
    constexpr int V = C::VEC;
    typedef typename VecOf<V>::T VT;
    if (threadIdx.x == 0) stamps[blockIdx.x * T_COUNT + T_ENTRY] = now();
    const unsigned long long target = grid_barrier_target();
    extern __shared__ __align__(16) unsigned char kevo_dynamic_smem[];
    VT* held = reinterpret_cast<VT*>(kevo_dynamic_smem);
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const VT* xv = reinterpret_cast<const VT*>(x + base + p.head);
    VT* yv = reinterpret_cast<VT*>(y + base + p.head);
    float v[N * V];
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) unpack(load<C::LOAD>(xv + q), v + j * V);
        else for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
    }
    float m = -KEVO_INF;
#pragma unroll 4
    for (int j = 0; j < S; ++j) {
        const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
        if (q < c.q1) {
            const VT w = load<C::LOAD>(xv + q);
            held[j * THREADS + threadIdx.x] = w;
            float u[V]; unpack(w, u);
            for (int e = 0; e < V; ++e) m = fmaxf(m, u[e]);
        }
    }
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    STAMP(T_LOADED);
    if (SPLIT) m = group_reduce<THREADS, C::REDUCE>(m, MaxOp());
    const float km = m * KEVO_LOG2E;
    const float kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = fast_exp2(fmaf(v[i], KEVO_LOG2E, -kr)); s += v[i]; }
#pragma unroll 4
    for (int j = 0; j < S; ++j) {
        if (c.q0 + threadIdx.x + (N + j) * THREADS < c.q1) {
            float u[V]; unpack(held[j * THREADS + threadIdx.x], u);
            for (int e = 0; e < V; ++e) { u[e] = fast_exp2(fmaf(u[e], KEVO_LOG2E, -kr)); s += u[e]; }
            held[j * THREADS + threadIdx.x] = pack<V>(u, 1.0f);
        }
    }
    Stat part;
    if (SPLIT) part = Stat{km, group_reduce<THREADS, C::REDUCE>(s, SumOp())};
    else part = group_reduce<THREADS, C::REDUCE>(Stat{km, s}, MergeOp<C::EXP>());
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(part.m, part.s);
    STAMP(T_REDUCED);
    grid_barrier(target);
    const Stat st = row_stat<C, THREADS>(ws + (long long)row * chunks, chunks);
    const float scale = m == -KEVO_INF ? 0.0f : exp2f(km - st.m) / st.s;
    STAMP(T_RELEASED);
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, pack<V>(v + j * V, scale));
    }
#pragma unroll 4
    for (int j = 0; j < S; ++j) {
        const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
        if (q < c.q1) {
            float u[V]; unpack(held[j * THREADS + threadIdx.x], u);
            store<C::STORE>(yv + q, pack<V>(u, scale));
        }
    }
    STAMP(T_END);
}

__global__ void flush(const float4* buf, long long n, float* sink) {
    float acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) acc += buf[i].x;
    if (acc == 12345.f) *sink = acc;
}
__global__ void fill(float* x, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        x[i] = (float)((i * 2654435761ull) % 20011) / 2000.0f;
}
__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) b[i] = a[i];
}

template <int N, int S> void run(const char* what, void (*kernel)(const float*, float*, float2*, int, int, unsigned long long*), int rows, int cols, int sms, float* x, float* y, float2* ws, unsigned long long* d_st,
                                 float4* fbuf, long long flushN, float* sink) {
    const int smem = 512 * S * 16;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    int chunks = 2 * sms / rows, grid = rows * chunks;
    unsigned long long* st = d_st;
    void* args[] = {&x, &y, &ws, &cols, &chunks, &st};
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> times;
    std::vector<unsigned long long> h(grid * T_COUNT);
    std::vector<std::vector<double>> phase(T_COUNT + 2);
    for (int rep = 0; rep < 60; ++rep) {
        flush<<<sms * 4, 1024>>>(fbuf, flushN, sink);
        cudaEventRecord(a);
        cudaLaunchCooperativeKernel((void*)kernel, grid, 512, args, smem, 0);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        if (rep < 10) continue;
        times.push_back(ms * 1000);
        cudaMemcpy(h.data(), d_st, h.size() * 8, cudaMemcpyDeviceToHost);
        unsigned long long t0 = ~0ull;
        for (int i = 0; i < grid; ++i) t0 = std::min(t0, h[i * T_COUNT]);
        for (int p = 0; p < T_COUNT; ++p) {
            std::vector<double> v;
            for (int i = 0; i < grid; ++i) v.push_back((h[i * T_COUNT + p] - t0) / 1000.0);
            std::sort(v.begin(), v.end());
            phase[p].push_back(p == T_ENTRY ? v.back() : v[v.size() / 2]);  // entry: the last block's; others: median
            if (p == T_END) phase[p].back() = v.back();                      // end: the last block's
            if (p == T_LOADED) phase[T_COUNT].push_back(v.back());
            if (p == T_REDUCED) phase[T_COUNT + 1].push_back(v.back());
        }
    }
    std::sort(times.begin(), times.end());
    const char* names[] = {"last block entered", "loads done (median block)", "partial reduced (median)", "released from barrier (median)", "last block done", "loads done (last block)", "partial reduced (last block)"};
    printf("%s %dx%d N=%d S=%d grid %d x 512: kernel %.2f us by events (median of %zu; stamps need __syncthreads, so a bit slower)\n",
           what, rows, cols, N, S, grid, times[times.size() / 2], times.size());
    for (int p = 0; p < T_COUNT + 2; ++p) {
        std::sort(phase[p].begin(), phase[p].end());
        printf("  %-34s %7.2f us after the first block entered\n", names[p], phase[p][phase[p].size() / 2]);
    }
    printf("  %s\n", cudaGetErrorString(cudaGetLastError()));
}

int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long flushN = (200ll << 20) / 16;
    float4* fbuf; float* sink; cudaMalloc(&fbuf, flushN * 16); cudaMalloc(&sink, 4); cudaMemset(fbuf, 0, flushN * 16);
    float *x, *y; float2* ws; unsigned long long* st;
    cudaMalloc(&x, 48 << 20); cudaMalloc(&y, 48 << 20); cudaMalloc(&ws, 1 << 20); cudaMalloc(&st, 1 << 20);
    fill<<<sms * 4, 512>>>(x, 10000000);
#define RUNS(NN, SS, R, CC) \
    run<NN, SS>("champion", phased<FusedCfg, 512, NN, SS>, R, CC, sms, x, y, ws, st, fbuf, flushN, sink); \
    run<NN, SS>("fast exp", phased_fast<FusedCfg, 512, NN, SS, false>, R, CC, sms, x, y, ws, st, fbuf, flushN, sink); \
    run<NN, SS>("fast exp, max then sum", phased_fast<FusedCfg, 512, NN, SS, true>, R, CC, sms, x, y, ws, st, fbuf, flushN, sink);
    RUNS(8, 12, 1, 10000000)
    RUNS(2, 0, 8, 128256)
    RUNS(2, 0, 1, 1000000)
    // The copy for reference, same timing.
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (long long n : {10000000ll, 1026048ll}) {
        std::vector<float> t;
        for (int rep = 0; rep < 60; ++rep) {
            flush<<<sms * 4, 1024>>>(fbuf, flushN, sink);
            cudaEventRecord(a); copy4<<<sms * 4, 512>>>((const float4*)x, (float4*)y, n / 4); cudaEventRecord(b);
            cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (rep >= 10) t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end());
        printf("copy4 of %lld floats: %.2f us\n", n, t[t.size() / 2]);
    }
    return 0;
}
