// How should the blocks of a one-launch split softmax meet? (not part of kevo: an experiment). The champion's
// split_fused meets at a counter barrier and then reads the row's partials: an arrival, a poll and a read, three
// L2 round trips after the last block's partial. Here each block publishes its partial in a tagged slot (64-bit
// words {launch tag, value}, so a partial and its readiness are one single-copy-atomic word) and its row's blocks
// poll the slots themselves: one round trip. Also times each kernel launched cooperatively and plainly, and the two
// copies the floor is taken from, all the way kevo's evaluator times: queued behind a gate, L2 flushed before
// every launch, each launch between its own events, variants interleaved.
// Build: bench/experiments/probe/build-phases.sh (makes lib.cuh) then nvcc -arch=sm_90 -std=c++17 -O3 -I. barrier.cu -o barrier
#include <cstdio>
#include <cmath>
#include <vector>
#include <string>
#include <functional>
#include <algorithm>
#include "kevo.h"
#include "lib.cuh"  // the champion's device library (bench/results/champion-default-h100.cu without its header)

#define SLOTS 4096
__device__ unsigned long long slot_words[SLOTS * 2];
__device__ unsigned slot_epoch;
__device__ unsigned spin_gave_up;  // a probe bug must cost a wrong number, not a hung GPU

__device__ __forceinline__ void publish(int b, unsigned tag, float m, float s) {
    const unsigned long long a = ((unsigned long long)tag << 32) | __float_as_uint(m);
    const unsigned long long c = ((unsigned long long)tag << 32) | __float_as_uint(s);
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" :: "l"(slot_words + 2 * b), "l"(a), "l"(c) : "memory");
}

template <int SLEEP> __device__ __forceinline__ Stat await_slot(int b, unsigned tag) {
    unsigned long long a, c;
    for (int n = 0;; ++n) {
        if (n > (1 << 22)) { atomicAdd(&spin_gave_up, 1u); break; }
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(c) : "l"(slot_words + 2 * b) : "memory");
        if ((unsigned)(a >> 32) == tag && (unsigned)(c >> 32) == tag) break;
        if (SLEEP) __nanosleep(SLEEP);
    }
    return Stat{__uint_as_float((unsigned)a), __uint_as_float((unsigned)c)};
}

// Warp 0 gathers a row's slots: each lane reads up to PER of them at once (all loads in flight together) and the
// warp polls until every one carries this launch's tag, then merges: max across the warp, one rescale, sums.
template <int PER, int EXP> __device__ __forceinline__ Stat warp_gather(int first, int count, unsigned tag) {
    const int lane = threadIdx.x & 31;
    unsigned long long a[PER], c[PER];
    bool ok;
    int n = 0;
    do {
        if (++n > (1 << 22)) { if (lane == 0) atomicAdd(&spin_gave_up, 1u); break; }
        ok = true;
#pragma unroll
        for (int i = 0; i < PER; ++i) {
            if (lane + 32 * i < count)
                asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a[i]), "=l"(c[i]) : "l"(slot_words + 2 * (first + lane + 32 * i)) : "memory");
        }
#pragma unroll
        for (int i = 0; i < PER; ++i)
            if (lane + 32 * i < count) ok &= (unsigned)(a[i] >> 32) == tag && (unsigned)(c[i] >> 32) == tag;
    } while (!__all_sync(KEVO_FULL_MASK, ok));
    float m = -KEVO_INF;
#pragma unroll
    for (int i = 0; i < PER; ++i) if (lane + 32 * i < count) m = fmaxf(m, __uint_as_float((unsigned)a[i]));
    const float mm = warp_reduce<32>(m, MaxOp());
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < PER; ++i)
        if (lane + 32 * i < count && __uint_as_float((unsigned)a[i]) != -KEVO_INF)
            sum += __uint_as_float((unsigned)c[i]) * Num<EXP>::exp_keys(__uint_as_float((unsigned)a[i]), mm);
    return Stat{mm, warp_reduce<32>(sum, SumOp())};
}

template <int GATHER, int SLEEP, int EXP, int THREADS> __device__ __forceinline__ Stat exchange(int row, int chunks, unsigned tag, float km, float s) {
    if (threadIdx.x == 0) publish(blockIdx.x, tag, km, s);
    if (GATHER) {
        __shared__ Stat out;
        if (threadIdx.x < 32) {
            const Stat st = warp_gather<9, EXP>(row * chunks, chunks, tag);
            if (threadIdx.x == 0) out = st;
        }
        __syncthreads();
        return out;
    }
    Stat st = {-KEVO_INF, 0.0f};
    for (int i = threadIdx.x; i < chunks; i += THREADS) st = MergeOp<EXP>()(st, await_slot<SLEEP>(row * chunks + i, tag));
    return group_reduce<THREADS, REDUCE_SHUFFLE>(st, MergeOp<EXP>());
}

// Exchange alone (no data): what the meeting itself costs, against an empty kernel of the same grid.
template <int MODE> __global__ void __launch_bounds__(512, 2) exchange_only(float2* ws, int chunks, float* sink) {
    unsigned tag = 0;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(tag) : "l"(&slot_epoch) : "memory");
    tag += 1;
    const int row = blockIdx.x / chunks;
    Stat st = {0.0f, 1.0f};
    if (MODE == 1) { st = exchange<0, 0, EXP_EXP2, 512>(row, chunks, tag, (float)blockIdx.x, 1.0f); }
    if (MODE == 2) { st = exchange<1, 0, EXP_EXP2, 512>(row, chunks, tag, (float)blockIdx.x, 1.0f); }
    if (MODE == 3) {
        const unsigned long long target = grid_barrier_target();
        if (threadIdx.x == 0) ws[blockIdx.x] = make_float2((float)blockIdx.x, 1.0f);
        grid_barrier(target);
        st = row_stat<FusedCfg, 512>(ws + (long long)row * chunks, chunks);
    }
    if (MODE == 1 || MODE == 2) {
        __syncthreads();
        if (blockIdx.x == 0 && threadIdx.x == 0) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(&slot_epoch), "r"(tag) : "memory");
    }
    if (st.s == 12345.0f) *sink = st.m;
}

// The champion's split_fused with the slot exchange in place of grid_barrier + row_stat.
// SKIP (ablation, wrong results on purpose): bit 0 leaves out the exchange (each block scales by its own partial),
// bit 1 the write (kept only where an impossible scale asks for it, so the work before it stays).
template <class C, int THREADS, int N, int S, int SLEEP, int SKIP = 0, int GATHER = 0>
__global__ void __launch_bounds__(THREADS, 2) fused_slots(const float* __restrict__ x, float* __restrict__ y,
                                                          float2* __restrict__ ws, int cols, int chunks) {
    constexpr int V = C::VEC;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    unsigned tag = 0;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(tag) : "l"(&slot_epoch) : "memory");
    tag += 1;
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
    const bool extras = V > 1 && k == 0;
    float v[N * V];
    float h = -KEVO_INF, t = -KEVO_INF;
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
    if (extras) {
        if ((int)threadIdx.x < p.head) h = load<C::LOAD>(xr + threadIdx.x);
        if ((int)threadIdx.x < p.tail) t = load<C::LOAD>(xr + p.head + p.nv * V + threadIdx.x);
    }
    m = fmaxf(m, fmaxf(h, t));
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    m = group_reduce<THREADS, C::REDUCE>(m, MaxOp());
    const float km = K::key(m);
    const float kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
#pragma unroll 4
    for (int j = 0; j < S; ++j) {
        if (c.q0 + threadIdx.x + (N + j) * THREADS < c.q1) {
            float u[V]; unpack(held[j * THREADS + threadIdx.x], u);
            for (int e = 0; e < V; ++e) { u[e] = K::exp_from(u[e], kr); s += u[e]; }
            held[j * THREADS + threadIdx.x] = pack<V>(u, 1.0f);
        }
    }
    h = K::exp_from(h, kr);
    t = K::exp_from(t, kr);
    s = group_reduce<THREADS, C::REDUCE>(s + h + t, SumOp());
    Stat st = {km, s};
    if (!(SKIP & 1)) {
        st = exchange<GATHER, SLEEP, C::EXP, THREADS>(row, chunks, tag, km, s);
    }
    // Every block has read the epoch by now (it published after reading it), so the next launch may see the new one.
    if (blockIdx.x == 0 && threadIdx.x == 0) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(&slot_epoch), "r"(tag) : "memory");
    const float scale = m == -KEVO_INF ? 0.0f : K::exp_keys(km, st.m) / st.s;
    if ((SKIP & 2) && scale != -12345.0f) return;
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
    if (extras) {
        if ((int)threadIdx.x < p.head) store<C::STORE>(yr + threadIdx.x, h * scale);
        if ((int)threadIdx.x < p.tail) store<C::STORE>(yr + p.head + p.nv * V + threadIdx.x, t * scale);
    }
}

// A row per thread-block cluster of CL blocks (no grid barrier, no co-residency needed: the hardware schedules a
// cluster whole): each block's (max key, sum) goes to its shared memory, the cluster meets at its hardware barrier,
// and every block reads its peers' partials through distributed shared memory.
__device__ __forceinline__ unsigned cluster_rank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() { asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ float2 peer_load(const float2* local, unsigned rank) {
    unsigned a = (unsigned)__cvta_generic_to_shared(local), r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    float2 v;
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(r) : "memory");
    return v;
}
template <class C, int THREADS, int N, int CL, int MINB>
__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS, MINB) cluster_rows(const float* __restrict__ x, float* __restrict__ y,
                                                                                         float2* __restrict__ ws, int cols, int chunks) {
    constexpr int V = C::VEC;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    __shared__ float2 part;
    __shared__ Stat merged;
    const int row = blockIdx.x / CL, k = cluster_rank();
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, CL);
    const float* xr = x + base;
    float* yr = y + base;
    const VT* xv = reinterpret_cast<const VT*>(xr + p.head);
    VT* yv = reinterpret_cast<VT*>(yr + p.head);
    const bool extras = V > 1 && k == 0;
    float v[N * V];
    float h = -KEVO_INF, t = -KEVO_INF;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) unpack(load<C::LOAD>(xv + q), v + j * V);
        else for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
    }
    if (extras) {
        if ((int)threadIdx.x < p.head) h = load<C::LOAD>(xr + threadIdx.x);
        if ((int)threadIdx.x < p.tail) t = load<C::LOAD>(xr + p.head + p.nv * V + threadIdx.x);
    }
    float m = fmaxf(h, t);
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    m = group_reduce<THREADS, C::REDUCE>(m, MaxOp());
    const float km = K::key(m);
    const float kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
    h = K::exp_from(h, kr);
    t = K::exp_from(t, kr);
    s = group_reduce<THREADS, C::REDUCE>(s + h + t, SumOp());
    if (threadIdx.x == 0) part = make_float2(km, s);
    cluster_sync();
    if (threadIdx.x < 32) {
        Stat st = {-KEVO_INF, 0.0f};
        if (threadIdx.x < CL) { const float2 q = peer_load(&part, threadIdx.x); st = Stat{q.x, q.y}; }
        st = warp_reduce<32>(st, MergeOp<C::EXP>());
        if (threadIdx.x == 0) merged = st;
    }
    // Peers may still read this block's part: leave only after everyone has (arrive now, wait at the end).
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    __syncthreads();
    const Stat st = merged;
    const float scale = m == -KEVO_INF ? 0.0f : K::exp_keys(km, st.m) / st.s;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, pack<V>(v + j * V, scale));
    }
    if (extras) {
        if ((int)threadIdx.x < p.head) store<C::STORE>(yr + threadIdx.x, h * scale);
        if ((int)threadIdx.x < p.tail) store<C::STORE>(yr + p.head + p.nv * V + threadIdx.x, t * scale);
    }
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__global__ void gate_k(volatile int* g) { while (*g == 0) __nanosleep(1000); }
__global__ void flush(const float4* buf, long long n, float* sink) {
    float acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) acc += buf[i].x;
    if (acc == 12345.f) *sink = acc;
}
__global__ void fill(float* x, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        x[i] = (float)((i * 2654435761ull) % 20011) / 2000.0f;
}
__global__ void kcopy(const float* __restrict__ x, float* __restrict__ y, long long n) {  // trusted.cu's kevo_copy
    const long long n4 = n / 4, stride = (long long)gridDim.x * blockDim.x, first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (long long i = first; i < n4; i += stride) y4[i] = x4[i];
    for (long long i = n4 * 4 + first; i < n; i += stride) y[i] = x[i];
}

typedef void (*Fused)(const float*, float*, float2*, int, int);
struct Variant { std::string name; std::function<void()> launch; bool softmax; };

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long flushN = (256ll << 20) / 16;
    float4* fbuf; float* sink; cudaMalloc(&fbuf, flushN * 16); cudaMalloc(&sink, 4); cudaMemset(fbuf, 0, flushN * 16);
    float *x, *y; float2* ws;
    cudaMalloc(&x, 48 << 20); cudaMalloc(&y, 48 << 20); cudaMalloc(&ws, 1 << 20);
    fill<<<sms * 4, 512>>>(x, 12000000);
    int* gate; cudaHostAlloc(&gate, 4, cudaHostAllocMapped);
    int* dgate; cudaHostGetDevicePointer(&dgate, gate, 0);
    const int rounds = argc > 1 ? atoi(argv[1]) : 100;

    struct Cl { std::string name; Fused f; int cl, threads; bool nonportable; };
    struct Shape { int rows, cols; Fused champ; std::vector<std::pair<std::string, Fused>> slots; int S; std::vector<Cl> cls; };
    std::vector<Shape> shapes = {
        {1, 1000000, softmax_fused_e8, {{"slots", fused_slots<FusedCfg, 512, 2, 0, 0>}, {"no-exchange", fused_slots<FusedCfg, 512, 2, 0, 0, 1>}, {"gather", fused_slots<FusedCfg, 512, 2, 0, 0, 0, 1>}}, 0, {}},
        {8, 128256, softmax_fused_e8, {{"slots", fused_slots<FusedCfg, 512, 2, 0, 0>}, {"no-exchange", fused_slots<FusedCfg, 512, 2, 0, 0, 1>}, {"gather", fused_slots<FusedCfg, 512, 2, 0, 0, 0, 1>}}, 0,
         {{"cluster 8 x 1024 e16", cluster_rows<FusedCfg, 1024, 4, 8, 1>, 8, 1024, false},
          {"cluster 16 x 512 e16", cluster_rows<FusedCfg, 512, 4, 16, 2>, 16, 512, true},
          {"cluster 16 x 1024 e8", cluster_rows<FusedCfg, 1024, 2, 16, 1>, 16, 1024, true}}},
        {32, 50257, softmax_fused_e16, {{"slots", fused_slots<FusedCfg, 512, 4, 0, 0>}, {"gather", fused_slots<FusedCfg, 512, 4, 0, 0, 0, 1>}}, 0,
         {{"cluster 8 x 512 e16", cluster_rows<FusedCfg, 512, 4, 8, 2>, 8, 512, false},
          {"cluster 4 x 1024 e16", cluster_rows<FusedCfg, 1024, 4, 4, 1>, 4, 1024, false},
          {"cluster 8 x 256 e32", cluster_rows<FusedCfg, 256, 8, 8, 4>, 8, 256, false},
          {"cluster 2 x 1024 e32", cluster_rows<FusedCfg, 1024, 8, 2, 1>, 2, 1024, false},
          {"cluster 2 x 512 e52", cluster_rows<FusedCfg, 512, 13, 2, 1>, 2, 512, false},
          {"cluster 4 x 512 e28", cluster_rows<FusedCfg, 512, 7, 4, 1>, 4, 512, false},
          {"cluster 1 x 1024 e52", cluster_rows<FusedCfg, 1024, 13, 1, 1>, 1, 1024, false}}},
        {1, 10000000, softmax_fused_e32_s56, {{"slots", fused_slots<FusedCfg, 512, 8, 14, 0>}, {"gather", fused_slots<FusedCfg, 512, 8, 14, 0, 0, 1>}}, 14, {}},
    };
    cudaEvent_t ev[2][16];
    for (auto& e : ev) for (auto& f : e) cudaEventCreate(&f);
    {
        std::vector<std::pair<std::string, void (*)(float2*, int, float*)>> xs = {
            {"empty", exchange_only<0>}, {"slots, a thread per slot", exchange_only<1>}, {"slots, warp 0 gathers", exchange_only<2>},
            {"counter barrier + read", exchange_only<3>}};
        for (int rows : {1, 8, 32}) {
            int chunks = 2 * sms / rows, grid = rows * chunks;
            std::vector<std::vector<float>> t(xs.size());
            for (int r = 0; r < rounds + 5; ++r) {
                *gate = 0;
                gate_k<<<1, 1>>>(dgate);
                for (size_t j = 0; j < xs.size(); ++j) {
                    flush<<<sms * 4, 1024>>>(fbuf, flushN, sink);
                    cudaEventRecord(ev[0][j]);
                    auto f = xs[(j + r) % xs.size()].second;
                    void* args[] = {&ws, &chunks, &sink};
                    cudaLaunchCooperativeKernel((void*)f, grid, 512, args, 0, 0);
                    cudaEventRecord(ev[1][j]);
                }
                *gate = 1;
                cudaEventSynchronize(ev[1][xs.size() - 1]);
                for (size_t j = 0; j < xs.size() && r >= 5; ++j) {
                    float ms; cudaEventElapsedTime(&ms, ev[0][j], ev[1][j]);
                    t[(j + r) % xs.size()].push_back(ms * 1000);
                }
            }
            printf("exchange only, %d rows x %d chunks (grid %d x 512):\n", rows, chunks, grid);
            for (size_t v = 0; v < xs.size(); ++v) {
                std::sort(t[v].begin(), t[v].end());
                printf("  %-28s median %6.2f us  p10 %6.2f  p90 %6.2f\n", xs[v].first.c_str(), t[v][t[v].size() / 2], t[v][t[v].size() / 10], t[v][t[v].size() * 9 / 10]);
            }
        }
        unsigned gave = 0; cudaMemcpyFromSymbol(&gave, spin_gave_up, 4);
        printf("  %s, spins given up: %u\n", cudaGetErrorString(cudaGetLastError()), gave);
    }
    for (Shape& sh : shapes) {
        if (argc > 2 && sh.rows != atoi(argv[2])) continue;
        const long long n = (long long)sh.rows * sh.cols;
        int chunks = 2 * sms / sh.rows, grid = sh.rows * chunks, cols = sh.cols;
        const int smem = 512 * sh.S * 16;
        std::vector<Variant> vs;
        vs.push_back({"memcpy", [=] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); }, false});
        vs.push_back({"kevo_copy", [=] { kcopy<<<(int)std::max(1ll, std::min((n / 4 + 511) / 512, (long long)sms * 4)), 512>>>(x, y, n); }, false});
        vs.push_back({"memset (write only)", [=] { cudaMemsetAsync(y, 0, n * 4); }, false});
        vs.push_back({"read only", [=] { flush<<<(int)std::max(1ll, std::min((n / 4 + 511) / 512, (long long)sms * 4)), 512>>>((const float4*)x, n / 4, sink); }, false});
        std::vector<std::pair<std::string, Fused>> ks = {{"champion", sh.champ}};
        for (auto& s : sh.slots) ks.push_back(s);
        for (auto& kv : ks) {
            Fused f = kv.second;
            cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
            vs.push_back({kv.first + " coop", [=]() mutable {
                const float* xa = x; float* ya = y; float2* wa = ws; int ca = cols, ka = chunks;
                void* args[] = {&xa, &ya, &wa, &ca, &ka};
                cudaLaunchCooperativeKernel((void*)f, grid, 512, args, smem, 0); }, true});
        }
        for (const Cl& cl : sh.cls) {
            Fused f = cl.f;
            if (cl.nonportable) cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
            int cg = sh.rows * cl.cl, th = cl.threads, clu = cl.cl;
            cudaLaunchConfig_t lc = {}; lc.gridDim = dim3(cg); lc.blockDim = dim3(th);
            int nclusters = 0; cudaOccupancyMaxActiveClusters(&nclusters, (void*)f, &lc);
            printf("  (%s: at most %d clusters at once, %s)\n", cl.name.c_str(), nclusters, cudaGetErrorString(cudaGetLastError()));
            vs.push_back({cl.name, [=] { f<<<cg, th>>>(x, y, ws, cols, clu); }, true});
        }
        // Correctness: every softmax variant against the champion's output (itself checked by kevo).
        std::vector<float> ref(n), out(n);
        std::vector<double> err(vs.size(), 0.0);
        for (size_t v = 0; v < vs.size(); ++v) {
            if (!vs[v].softmax) continue;
            for (int rep = 0; rep < 3; ++rep) {
                cudaMemset(y, 0xff, n * 4);
                vs[v].launch();
                cudaDeviceSynchronize();
                cudaMemcpy(v == 4 ? ref.data() : out.data(), y, n * 4, cudaMemcpyDeviceToHost);
                if (v == 4) continue;
                for (long long i = 0; i < n; ++i) {
                    double d = std::fabs((double)out[i] - ref[i]) / std::max(1e-30, (double)std::fabs(ref[i]));
                    if (!(d <= 1e30)) d = 1e30;
                    err[v] = std::max(err[v], d);
                }
            }
        }
        // Each round: the variants in a rotated order, queued behind a closed gate, then released at once.
        std::vector<std::vector<float>> t(vs.size());
        const int warm = 5;
        for (int r = 0; r < rounds + warm; ++r) {
            *gate = 0;
            gate_k<<<1, 1>>>(dgate);
            for (size_t j = 0; j < vs.size(); ++j) {
                flush<<<sms * 4, 1024>>>(fbuf, flushN, sink);
                cudaEventRecord(ev[0][j]);
                vs[(j + r) % vs.size()].launch();
                cudaEventRecord(ev[1][j]);
            }
            *gate = 1;
            cudaEventSynchronize(ev[1][vs.size() - 1]);
            for (size_t j = 0; j < vs.size() && r >= warm; ++j) {
                float ms; cudaEventElapsedTime(&ms, ev[0][j], ev[1][j]);
                t[(j + r) % vs.size()].push_back(ms * 1000);
            }
        }
        printf("%dx%d: grid %d x 512, %d chunks per row, smem %d\n", sh.rows, sh.cols, grid, chunks, smem);
        for (size_t v = 0; v < vs.size(); ++v) {
            std::sort(t[v].begin(), t[v].end());
            const size_t k = t[v].size();
            printf("  %-22s median %7.2f us  p10 %7.2f  p90 %7.2f  (n=%zu)", vs[v].name.c_str(), t[v][k / 2], t[v][k / 10], t[v][k * 9 / 10], k);
            if (vs[v].softmax && v != 4) printf("  max rel diff vs champion %.2e", err[v]);
            printf("\n");
        }
        unsigned gave = 0; cudaMemcpyFromSymbol(&gave, spin_gave_up, 4);
        printf("  %s, spins given up: %u\n", cudaGetErrorString(cudaGetLastError()), gave);
    }
    return 0;
}
