// How many block-wide barriers does the one-launch split softmax need around its exchange? (not part of kevo:
// an experiment). The champion's split_fused reduces the block's max, takes exponentials against it, reduces the
// sum, publishes, then merges the row's partials with a max reduce and a sum reduce: four block reductions,
// eight __syncthreads, all after the last load and on the critical path. Variants:
//   PRE  0: the champion's (max reduce, exponentials, sum reduce)
//        1: each thread takes exponentials against its own max; one block reduce of (max, sum) pairs
//        2: as 1, but warps merge by shuffles and warp 0 merges the warps' pairs: one __syncthreads
//   POST 0: the champion's (a thread per slot, max reduce then sum reduce)
//        1: a thread per slot, one block reduce of (max, sum) pairs
//        2: warp 0 polls every slot of the row (all loads of a sweep in flight at once), merges by shuffles,
//           and shares the result: one __syncthreads
// Also, with the champion's reductions: the launch tag read by thread 0 only (TAG0), and slots spread one a 32-byte
// sector or one a 128-byte line (SPACE 4, 16) instead of eight a line (SPACE 2), in case polling contends.
// With PRE 1/2 a thread's values are exponentials against its own max, so it scales them by one more exponential.
// Build: bench/experiments/probe/build-phases.sh (lib.cuh, kevo.h), nvcc -arch=sm_90 -std=c++17 -O3 -I. merge.cu -o merge.
#include "kevo.h"
#include "lib.cuh"  // the champion's device library (bench/results/champion-default-h100.cu without its header)
#include "harness.cuh"

__device__ unsigned gave_up;
__device__ unsigned long long wide_slots[16 * 1024];  // a slot a 128-byte line (SPACE 16) or a 32-byte sector (SPACE 4)

template <int SPACE> __device__ __forceinline__ unsigned long long* slot_at(int b) {
    return SPACE == 2 ? kevo_slots + 2 * b : wide_slots + SPACE * b;
}

// publish_partial, into the slot array SPACE picks.
template <int SPACE> __device__ __forceinline__ void publish_at(unsigned tag, Stat st) {
    if (threadIdx.x == 0) {
        const unsigned long long m = ((unsigned long long)tag << 32) | __float_as_uint(st.m);
        const unsigned long long s = ((unsigned long long)tag << 32) | __float_as_uint(st.s);
        asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" :: "l"(slot_at<SPACE>(blockIdx.x)), "l"(m), "l"(s) : "memory");
        const unsigned long long add = blockIdx.x == 0 ? KEVO_GRID_ROUND - gridDim.x + 1 : 1ull;
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" :: "l"(&kevo_grid_arrivals), "l"(add) : "memory");
    }
}

template <int SPACE = 2> __device__ __forceinline__ Stat poll_slot(int b, unsigned tag) {
    unsigned long long m, s;
    for (int n = 0;; ++n) {
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(m), "=l"(s) : "l"(slot_at<SPACE>(b)) : "memory");
        if ((unsigned)(m >> 32) == tag && (unsigned)(s >> 32) == tag) break;
        if (n > (1 << 22)) { atomicAdd(&gave_up, 1u); break; }
    }
    return Stat{__uint_as_float((unsigned)m), __uint_as_float((unsigned)s)};
}

// Warp 0: every lane sweeps its PER slots with all loads in flight, until every slot carries this launch's tag.
template <int PER, int EXP> __device__ __forceinline__ Stat warp_gather(int first, int count, unsigned tag) {
    const int lane = threadIdx.x & 31;
    unsigned long long a[PER], c[PER];
    bool ok;
    int n = 0;
    do {
        if (++n > (1 << 22)) { if (lane == 0) atomicAdd(&gave_up, 1u); break; }
        ok = true;
#pragma unroll
        for (int i = 0; i < PER; ++i)
            if (lane + 32 * i < count)
                asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a[i]), "=l"(c[i]) : "l"(kevo_slots + 2 * (first + lane + 32 * i)) : "memory");
#pragma unroll
        for (int i = 0; i < PER; ++i)
            if (lane + 32 * i < count) ok &= (unsigned)(a[i] >> 32) == tag && (unsigned)(c[i] >> 32) == tag;
    } while (!__all_sync(KEVO_FULL_MASK, ok));
    Stat st = {-KEVO_INF, 0.0f};
#pragma unroll
    for (int i = 0; i < PER; ++i)
        if (lane + 32 * i < count) st = MergeOp<EXP>()(st, Stat{__uint_as_float((unsigned)a[i]), __uint_as_float((unsigned)c[i])});
    return warp_reduce<32>(st, MergeOp<EXP>());
}

template <class C, int THREADS, int N, int PRE, int POST, int PER, int SPACE = 2, bool TAG0 = false>
__global__ void __launch_bounds__(THREADS, 2) merged(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    constexpr int V = C::VEC, WARPS = THREADS / 32;
    typedef typename VecOf<V>::T VT;
    typedef Num<C::EXP> K;
    __shared__ Stat warp_part[WARPS];
    __shared__ Stat row_st;
    __shared__ unsigned tag0;
    // TAG0: thread 0 alone reads the launch counter (not every thread), the block reads it from shared memory.
    if (TAG0 && threadIdx.x == 0) tag0 = launch_tag();
    const unsigned tag_all = TAG0 ? 0u : launch_tag();
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
    if (extras) {
        if ((int)threadIdx.x < p.head) h = load<C::LOAD>(xr + threadIdx.x);
        if ((int)threadIdx.x < p.tail) t = load<C::LOAD>(xr + p.head + p.nv * V + threadIdx.x);
    }
    float m = fmaxf(h, t);
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);
    if (PRE == 0) m = group_reduce<THREADS, C::REDUCE>(m, MaxOp());
    else if (TAG0) __syncthreads();
    const unsigned tag = TAG0 ? tag0 : tag_all;
    // A thread (or block) with only -inf uses key 0: its exps are 0 and so is its scale.
    const float km = m == -KEVO_INF ? -KEVO_INF : K::key(m);
    const float kr = m == -KEVO_INF ? 0.0f : km;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
    h = K::exp_from(h, kr);
    t = K::exp_from(t, kr);
    s += h + t;
    if (PRE == 0) {
        publish_at<SPACE>(tag, Stat{km, group_reduce<THREADS, C::REDUCE>(s, SumOp())});
    } else if (PRE == 1) {
        publish_partial(tag, group_reduce<THREADS, C::REDUCE>(Stat{km, s}, MergeOp<C::EXP>()));
    } else {
        const Stat w = warp_reduce<32>(Stat{km, s}, MergeOp<C::EXP>());
        if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = w;
        __syncthreads();
        if (threadIdx.x < 32) {
            Stat u = threadIdx.x < WARPS ? warp_part[threadIdx.x] : Stat{-KEVO_INF, 0.0f};
            publish_partial(tag, warp_reduce<32>(u, MergeOp<C::EXP>()));
        }
    }
    const int first = row * chunks;
    Stat st;
    if (POST == 2) {
        if (threadIdx.x < 32) {
            const Stat u = warp_gather<PER, C::EXP>(first, chunks, tag);
            if (threadIdx.x == 0) row_st = u;
        }
        __syncthreads();
        st = row_st;
    } else {
        Stat u = {-KEVO_INF, 0.0f};
        for (int i = threadIdx.x; i < chunks; i += THREADS) u = MergeOp<C::EXP>()(u, poll_slot<SPACE>(first + i, tag));
        st = POST == 0 ? merge_partials<C, THREADS>(u) : group_reduce<THREADS, C::REDUCE>(u, MergeOp<C::EXP>());
    }
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
}

typedef void (*Fused)(const float*, float*, int, int);

template <int N, int PER> std::vector<std::pair<std::string, Fused>> variants() {
    return {{"pre 1 post 0", merged<FusedCfg, 512, N, 1, 0, PER>}, {"pre 1 post 1", merged<FusedCfg, 512, N, 1, 1, PER>},
            {"pre 2 post 1", merged<FusedCfg, 512, N, 2, 1, PER>}, {"pre 0 post 2", merged<FusedCfg, 512, N, 0, 2, PER>},
            {"pre 2 post 2", merged<FusedCfg, 512, N, 2, 2, PER>}, {"pre 0 post 0 (= champion)", merged<FusedCfg, 512, N, 0, 0, PER>},
            {"champion, tag by thread 0", merged<FusedCfg, 512, N, 0, 0, PER, 2, true>},
            {"champion, slot a sector", merged<FusedCfg, 512, N, 0, 0, PER, 4>},
            {"champion, slot a line", merged<FusedCfg, 512, N, 0, 0, PER, 16>},
            {"champion, line + tag 0", merged<FusedCfg, 512, N, 0, 0, PER, 16, true>}};
}

int main(int argc, char** argv) {
    Bench b(argc, argv);  // ./probe [rounds]
    const int sms = b.sms, rounds = b.rounds;
    float *x = b.x, *y = b.y;
    struct Shape { int rows, cols; Fused champ; std::vector<std::pair<std::string, Fused>> vs; };
    std::vector<Shape> shapes = {
        {1, 1000000, softmax_fused_e8, variants<2, 9>()},
        {8, 128256, softmax_fused_e8, variants<2, 2>()},
        {32, 50257, softmax_fused_e16, variants<4, 1>()},
    };
    for (Shape& sh : shapes) {
        const long long n = (long long)sh.rows * sh.cols;
        const int cols = sh.cols, chunks = 2 * sms / sh.rows, grid = sh.rows * chunks;
        std::vector<Variant> vs;
        b.floors(vs, n);
        std::vector<std::pair<std::string, Fused>> ks = {{"champion", sh.champ}};
        for (auto& kv : sh.vs) ks.push_back(kv);
        for (auto& kv : ks) {
            Fused f = kv.second;
            vs.push_back({kv.first, [=]() mutable {
                const float* xa = x; float* ya = y; int ca = cols, ka = chunks;
                void* args[] = {&xa, &ya, &ca, &ka};
                cudaLaunchCooperativeKernel((void*)f, grid, 512, args, 0, 0); }, SOFTMAX});
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
        char title[64];
        snprintf(title, sizeof title, "%dx%d, grid %d x 512, %d blocks a row", sh.rows, sh.cols, grid, chunks);
        b.time(vs, rounds, title);
        printf("  max relative difference from the champion:");
        for (size_t v = 3; v < vs.size(); ++v) printf(" [%s] %.1e", vs[v].name.c_str(), err[v]);
        unsigned gave = 0; cudaMemcpyFromSymbol(&gave, gave_up, 4);
        printf("\n  %s, spins given up: %u, rows not summing to 1: %zu", cudaGetErrorString(cudaGetLastError()), gave, wrong.size());
        for (auto& w : wrong) printf(" [%s]", w.c_str());
        printf("\n");
    }
    return 0;
}
