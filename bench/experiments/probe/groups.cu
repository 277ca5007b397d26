// Can a long row's exponentials be taken while its chunk is still arriving? (not part of kevo: an experiment). The
// champion's split_fused takes every exponential after the block's max is known, i.e. after the last load: on 1x10^7
// that is 80 exponentials a thread, 82 K an SM, about 2.7 us of the special-function unit on the critical path.
// Here each thread takes them group by group as its data lands, against the group's own max (so no exponential can
// overflow), keeps the exponentials where its elements were, and remembers one (key, sum) per group. After the last
// group it merges its few groups into one (max, sum), the block reduces max then plain sums as the champion does, the
// row's partials are exchanged in the champion's slots, and at the write each group is scaled by one factor,
// exp(group key - row key) / row sum. Variants: the shared-memory part fetched by cp.async (no registers held while
// in flight) in groups of GS vectors, or by plain loads group by group. The register part is one group.
// Build: bench/experiments/probe/build-phases.sh (lib.cuh, kevo.h), nvcc -arch=sm_90 -std=c++17 -O3 -I. groups.cu -o groups.
#include "kevo.h"
#include "lib.cuh"  // the champion's device library (bench/results/champion-default-h100.cu without its header)
#include "harness.cuh"

__device__ __forceinline__ void copy16_async(void* smem, const void* src) {
    const unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(to), "l"(src) : "memory");
}
__device__ __forceinline__ void commit_async() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Groups complete in commit order: wait until at most n are still in flight (n is a constant once unrolled).
__device__ __forceinline__ void wait_async(int n) {
    switch (n) {
        case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
        case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
        case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
        case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
        case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
        case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
        default: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    }
}

__device__ unsigned gave_up;
__device__ __forceinline__ Stat poll_slot(int b, unsigned tag) {
    unsigned long long m, s;
    for (int n = 0;; ++n) {
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(m), "=l"(s) : "l"(kevo_slots + KEVO_SLOT_WORDS * b) : "memory");
        if ((unsigned)(m >> 32) == tag && (unsigned)(s >> 32) == tag) break;
        if (n > (1 << 22)) { atomicAdd(&gave_up, 1u); break; }
    }
    return Stat{__uint_as_float((unsigned)m), __uint_as_float((unsigned)s)};
}

// take_group (a group's exponentials against its own max) comes from the champion's library since the renderer took
// this design in (669ec32); the runs in groups.txt were built with this file's own copy of it, the same code.

// Ablations (wrong results on purpose), SKIP bits: 1 = no block reduce before publishing (thread 0 publishes its own
// (max, sum) after one barrier), 2 = no waiting for the row (each block scales by its own partial), 4 = the row's
// slots polled but not merged (a barrier, then the block's own partial).
template <class C, int THREADS, int N, int S, int GS, bool ASYNC, int SKIP = 0>
__global__ void __launch_bounds__(THREADS, 2) grouped(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    constexpr int V = C::VEC, G = S == 0 ? 0 : (S + GS - 1) / GS;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    read_launch_tag();
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
    float v[N * V + 2];  // the register part, then the row's head and tail elements (block k == 0 only)
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) unpack(load<C::LOAD>(xv + q), v + j * V);
        else for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
    }
    if (ASYNC) {
#pragma unroll
        for (int g = 0; g < G; ++g) {
#pragma unroll
            for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
                const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
                if (q < c.q1) copy16_async(held + j * THREADS + threadIdx.x, xv + q);
            }
            commit_async();
        }
    }
    v[N * V] = v[N * V + 1] = -KEVO_INF;
    if (extras) {
        if ((int)threadIdx.x < p.head) v[N * V] = load<C::LOAD>(xr + threadIdx.x);
        if ((int)threadIdx.x < p.tail) v[N * V + 1] = load<C::LOAD>(xr + p.head + p.nv * V + threadIdx.x);
    }
    const Stat reg = take_group<K, N * V + 2>(v);
    Stat grp[G > 0 ? G : 1];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        // The group lands in shared memory (by cp.async, or by loads stored there as they arrive), then a pass for
        // its max and a pass for its exponentials, a vector at a time: few registers held.
        float m = -KEVO_INF;
        if (ASYNC) {
            wait_async(G - 1 - g);
#pragma unroll
            for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
                if (c.q0 + threadIdx.x + (N + j) * THREADS < c.q1) {
                    float u[V];
                    unpack(held[j * THREADS + threadIdx.x], u);
                    for (int e = 0; e < V; ++e) m = fmaxf(m, u[e]);
                }
            }
        } else {
#pragma unroll
            for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
                const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
                if (q < c.q1) {
                    const VT w = load<C::LOAD>(xv + q);
                    held[j * THREADS + threadIdx.x] = w;
                    float u[V];
                    unpack(w, u);
                    for (int e = 0; e < V; ++e) m = fmaxf(m, u[e]);
                }
            }
        }
        const float key = m == -KEVO_INF ? 0.0f : K::key(m);
        float sum = 0.0f;
#pragma unroll
        for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
            if (c.q0 + threadIdx.x + (N + j) * THREADS < c.q1) {
                float u[V];
                unpack(held[j * THREADS + threadIdx.x], u);
                for (int e = 0; e < V; ++e) { u[e] = K::exp_from(u[e], key); sum += u[e]; }
                held[j * THREADS + threadIdx.x] = pack<V>(u, 1.0f);
            }
        }
        grp[g] = Stat{m == -KEVO_INF ? -KEVO_INF : key, sum};
    }
    // The thread's (max key, sum) over its groups, then the block's: max first, then plain sums.
    float kt = reg.m;
#pragma unroll
    for (int g = 0; g < G; ++g) kt = fmaxf(kt, grp[g].m);
    float st = reg.m == -KEVO_INF ? 0.0f : reg.s * K::exp_keys(reg.m, kt);
#pragma unroll
    for (int g = 0; g < G; ++g) st += grp[g].m == -KEVO_INF ? 0.0f : grp[g].s * K::exp_keys(grp[g].m, kt);
    float kb = kt, sb = st;
    if (SKIP & 1) {
        __syncthreads();
    } else {
        kb = group_reduce<THREADS, C::REDUCE>(kt, MaxOp());
        sb = group_reduce<THREADS, C::REDUCE>(kt == -KEVO_INF ? 0.0f : st * K::exp_keys(kt, kb), SumOp());
    }
    const unsigned tag = launch_tag();
    publish_partial(tag, Stat{kb, sb});
    Stat rs = {kb, sb};
    if (SKIP & 4) {
        float sink = 0.0f;
        for (int i = threadIdx.x; i < chunks; i += THREADS) sink += poll_slot(row * chunks + i, tag).s;
        __syncthreads();
        if (sink == -1.0f) rs.s = 2.0f;  // never: keeps the polls
    } else if (!(SKIP & 2)) {
        rs = await_row<C, THREADS>(tag, chunks);
    }
    const float inv = 1.0f / rs.s;
    const float fr = reg.m == -KEVO_INF ? 0.0f : K::exp_keys(reg.m, rs.m) * inv;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, pack<V>(v + j * V, fr));
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
        const float f = grp[g].m == -KEVO_INF ? 0.0f : K::exp_keys(grp[g].m, rs.m) * inv;
#pragma unroll
        for (int i = 0; i < GS; ++i) {
            const int j = g * GS + i;
            const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
            if (j < S && q < c.q1) {
                float u[V];
                unpack(held[j * THREADS + threadIdx.x], u);
                store<C::STORE>(yv + q, pack<V>(u, f));
            }
        }
    }
    if (extras) {
        if ((int)threadIdx.x < p.head) store<C::STORE>(yr + threadIdx.x, v[N * V] * fr);
        if ((int)threadIdx.x < p.tail) store<C::STORE>(yr + p.head + p.nv * V + threadIdx.x, v[N * V + 1] * fr);
    }
}

typedef void (*Fused)(const float*, float*, int, int);

int main(int argc, char** argv) {
    Bench b(argc, argv);  // ./groups [rounds]
    const int sms = b.sms, rounds = b.rounds;
    float *x = b.x, *y = b.y;
    struct Shape { int rows, cols; Fused champ; int smem; std::vector<std::pair<std::string, Fused>> vs; };
    // ./groups [rounds] [ablate]: with a second argument, the 4 MB shapes with the ablations instead.
    std::vector<Shape> shapes = {
        {1, 10000000, softmax_fused_e32_s48, 98304,
         {{"groups of 4, cp.async", grouped<FusedCfg, 512, 8, 12, 4, true>}, {"groups of 2, cp.async", grouped<FusedCfg, 512, 8, 12, 2, true>},
          {"groups of 6, cp.async", grouped<FusedCfg, 512, 8, 12, 6, true>}, {"groups of 4, loads", grouped<FusedCfg, 512, 8, 12, 4, false>},
          {"groups of 2, loads", grouped<FusedCfg, 512, 8, 12, 2, false>}, {"groups of 1, loads", grouped<FusedCfg, 512, 8, 12, 1, false>},
          {"groups of 3, loads", grouped<FusedCfg, 512, 8, 12, 3, false>}}},
        {1, 1000000, softmax_fused_e8, 0, {{"register group", grouped<FusedCfg, 512, 2, 0, 1, false>}}},
        {32, 50257, softmax_fused_e16, 0, {{"register group", grouped<FusedCfg, 512, 4, 0, 1, false>}}},
    };
    if (argc > 2) {
        auto ablations = [](int rows) {
            (void)rows;
            return std::vector<std::pair<std::string, Fused>>{
                {"register group (no ablation)", grouped<FusedCfg, 512, 2, 0, 1, false, 0>},
                {"ablate: no block reduce", grouped<FusedCfg, 512, 2, 0, 1, false, 1>},
                {"ablate: polled, not merged", grouped<FusedCfg, 512, 2, 0, 1, false, 4>},
                {"ablate: both", grouped<FusedCfg, 512, 2, 0, 1, false, 5>},
                {"ablate: no exchange", grouped<FusedCfg, 512, 2, 0, 1, false, 2>}};
        };
        shapes = {{1, 1000000, softmax_fused_e8, 0, ablations(1)}, {8, 128256, softmax_fused_e8, 0, ablations(8)}};
    }
    for (Shape& sh : shapes) {
        const long long n = (long long)sh.rows * sh.cols;
        const int cols = sh.cols, chunks = 2 * sms / sh.rows, grid = sh.rows * chunks, smem = sh.smem;
        std::vector<Variant> vs;
        b.floors(vs, n);
        std::vector<std::pair<std::string, Fused>> ks = {{"champion", sh.champ}};
        for (auto& kv : sh.vs) ks.push_back(kv);
        for (auto& kv : ks) {
            Fused f = kv.second;
            cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
            vs.push_back({kv.first, [=]() mutable {
                const float* xa = x; float* ya = y; int ca = cols, ka = chunks;
                void* args[] = {&xa, &ya, &ca, &ka};
                cudaLaunchCooperativeKernel((void*)f, grid, 512, args, smem, 0); }, SOFTMAX});
        }
        // Every variant against the champion (itself checked by kevo), element by element.
        std::vector<float> ref(n), out(n);
        std::vector<double> err(vs.size(), 0.0);
        for (size_t v = 2; v < vs.size(); ++v) {
            cudaMemset(y, 0xff, n * 4);
            vs[v].launch();
            cudaDeviceSynchronize();
            cudaMemcpy(v == 2 ? ref.data() : out.data(), y, n * 4, cudaMemcpyDeviceToHost);
            for (long long i = 0; v > 2 && i < n; ++i) {
                double d = std::fabs((double)out[i] - ref[i]) / std::max(1e-30, (double)std::fabs(ref[i]));
                err[v] = std::max(err[v], d <= 1e30 ? d : 1e30);
            }
        }
        const std::vector<std::string> wrong = b.wrong(vs, sh.rows, sh.cols);
        char title[80];
        snprintf(title, sizeof title, "%dx%d, grid %d x 512, %d blocks a row", sh.rows, sh.cols, grid, chunks);
        b.time(vs, rounds, title);
        printf("  max relative difference from the champion:");
        for (size_t v = 3; v < vs.size(); ++v) printf(" [%s] %.1e", vs[v].name.c_str(), err[v]);
        printf("\n  %s, rows not summing to 1: %zu", cudaGetErrorString(cudaGetLastError()), wrong.size());
        for (auto& w : wrong) printf(" [%s]", w.c_str());
        printf("\n");
    }
    return 0;
}
