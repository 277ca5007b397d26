// How fast can any one-launch softmax of a long row be? (not part of kevo: an experiment). Every output of a row
// depends on every input of it (through the row's sum), so no element of y may be written before the whole row
// has been read and that fact has reached every block that writes. A copy has no such dependency. This probe
// times copies that are made to obey it, with no arithmetic at all, next to the plain copies that set kevo's
// floor and the recorded champion, the way kevo's evaluator times (queued behind a gate, L2 flushed by a 256 MB
// read before every launch, one event pair per launch, variants interleaved in rotated order):
//   hold            each block loads its chunk of the row into registers (and shared memory where the chunk is
//                   larger), then stores it: the softmax's access shape, no dependency (the no-exchange ablation)
//   hold+counter    the same, but a block stores only after every block of its row has loaded: one arrival
//                   counter per row, thread 0 adds and polls it (the cheapest meeting known: one L2 round trip)
//   hold+flags      the same meeting through one tagged flag per block, each polled by its own thread
// Whatever a softmax adds (maxima, exponentials, sums, block reduces, merging partials) comes on top of hold+meet,
// so hold+meet / floor bounds what any one-launch softmax of this grid shape can reach.
// Build: bench/experiments/probe/build-phases.sh (makes lib.cuh and kevo.h) then
//        nvcc -arch=sm_90 -std=c++17 -O3 -I. bound.cu -o bound; run ./bound [rounds] [16bit] on the GPU host.
#include "kevo.h"
#include "lib.cuh"  // the champion's device library (bench/results/champion-default-h100.cu without its header)
#include "harness.cuh"

#define MAX_ROWS 64
#define MAX_BLOCKS 4096
#define MAX_SETS 8  // each grid shape counts its own launches: a count must stay a multiple of its row's blocks
__device__ unsigned long long row_count[MAX_SETS * MAX_ROWS * 16];  // one 128-byte line per row
__device__ unsigned block_flag[MAX_SETS * MAX_BLOCKS * 32];          // one 128-byte line per block
__device__ unsigned gave_up;  // a probe bug must cost a wrong number, not a hung GPU

enum { MEET_NONE = 0, MEET_COUNTER = 1, MEET_FLAGS = 2 };

template <int THREADS, int N, int S, int MEET>
__global__ void __launch_bounds__(THREADS, 1024 / THREADS) hold_copy(const float4* __restrict__ x, float4* __restrict__ y,
                                                                     long long nvRow, int chunks, int set) {
    extern __shared__ __align__(16) unsigned char dyn[];
    float4* held = reinterpret_cast<float4*>(dyn);
    __shared__ unsigned long long entry;
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    unsigned long long* cnt = row_count + (set * MAX_ROWS + row) * 16;
    unsigned* flags = block_flag + set * MAX_BLOCKS * 32;
    // The count on entry numbers this launch for the row (launches on one stream never overlap).
    if (MEET != MEET_NONE && threadIdx.x == 0) {
        unsigned long long c;
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(cnt) : "memory");
        entry = c;
    }
    const long long per = (nvRow + chunks - 1) / chunks;
    const long long q0 = row * nvRow + k * per;
    const int len = (int)(min(nvRow, (k + 1) * per) - k * per);
    const float4* xb = x + q0;
    float4* yb = y + q0;
    float4 v[N];
    float m = -KEVO_INF;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int q = threadIdx.x + j * THREADS;
        v[j] = q < len ? xb[q] : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int j = 0; j < S; ++j) {
        const int q = threadIdx.x + (N + j) * THREADS;
        if (q < len) {
            const float4 w = xb[q];
            held[j * THREADS + threadIdx.x] = w;
            m = fmaxf(m, w.x);
        }
    }
    // The block may announce itself only once its data has arrived: every thread touches every value first.
#pragma unroll
    for (int j = 0; j < N; ++j) m = fmaxf(m, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
    if (MEET != MEET_NONE) {
        __syncthreads();
        const unsigned long long base = entry - entry % chunks;
        if (MEET == MEET_COUNTER) {
            if (threadIdx.x == 0) {
                asm volatile("red.release.gpu.global.add.u64 [%0], 1;" :: "l"(cnt) : "memory");
                unsigned long long c;
                for (int n = 0;; ++n) {
                    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(cnt) : "memory");
                    if (c >= base + chunks) break;
                    if (n > (1 << 22)) { atomicAdd(&gave_up, 1u); break; }
                }
            }
        } else {
            const unsigned tag = (unsigned)(base / chunks) + 1u;
            if (threadIdx.x == 0) {
                asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(flags + 32 * blockIdx.x), "r"(tag) : "memory");
                asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" :: "l"(cnt) : "memory");
            }
            for (int i = threadIdx.x; i < chunks; i += THREADS) {
                unsigned f;
                for (int n = 0;; ++n) {
                    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flags + 32 * (row * chunks + i)) : "memory");
                    if (f == tag) break;
                    if (n > (1 << 22)) { atomicAdd(&gave_up, 1u); break; }
                }
            }
        }
        __syncthreads();
    }
    if (m == 12345.0f) return;  // never: keeps the loads' use ahead of the stores
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int q = threadIdx.x + j * THREADS;
        if (q < len) yb[q] = v[j];
    }
#pragma unroll
    for (int j = 0; j < S; ++j) {
        const int q = threadIdx.x + (N + j) * THREADS;
        if (q < len) yb[q] = held[j * THREADS + threadIdx.x];
    }
}

typedef void (*Hold)(const float4*, float4*, long long, int, int);
typedef void (*Fused)(const float*, float*, int, int);
struct HoldSet { int threads, perSm, S; Hold none, counter, flags; };

template <int T, int N, int S> HoldSet holds(int perSm) {
    return {T, perSm, S, hold_copy<T, N, S, MEET_NONE>, hold_copy<T, N, S, MEET_COUNTER>, hold_copy<T, N, S, MEET_FLAGS>};
}

int main(int argc, char** argv) {
    Bench b(argc, argv);  // ./probe [rounds]
    const int sms = b.sms, rounds = b.rounds;
    float *x = b.x, *y = b.y;

    struct Shape { int rows, cols; Fused champ; int champSmem; std::vector<HoldSet> sets; };
    // `./bound ROUNDS 16bit`: the bytes of the standard suite's few-long-row shapes in a 16-bit dtype (half the
    // float32 columns; 32x50257 rounded to 32x25128 for whole float4 rows). The copies move bytes, not elements,
    // so their bound is the 16-bit one; the champion row is then a float32 softmax of the same bytes.
    const bool half = argc > 2 && std::string(argv[2]) == "16bit";
    std::vector<Shape> shapes = half ? std::vector<Shape>{
        {1, 500000, softmax_fused_e8, 0, {holds<512, 1, 0>(2), holds<1024, 1, 0>(1), holds<256, 2, 0>(4)}},
        {8, 64128, softmax_fused_e8, 0, {holds<512, 1, 0>(2), holds<1024, 1, 0>(1)}},
        {32, 25128, softmax_fused_e8, 0, {holds<512, 2, 0>(2), holds<1024, 2, 0>(1)}},
        {1, 5000000, softmax_fused_e32_s48, 98304, {holds<512, 5, 14>(2), holds<512, 10, 0>(2)}},
    } : std::vector<Shape>{
        {1, 1000000, softmax_fused_e8, 0, {holds<512, 2, 0>(2), holds<1024, 2, 0>(1), holds<256, 2, 0>(4)}},
        {8, 128256, softmax_fused_e8, 0, {holds<512, 2, 0>(2), holds<1024, 2, 0>(1)}},
        {32, 50256, softmax_fused_e16, 0, {holds<512, 4, 0>(2), holds<1024, 4, 0>(1)}},  // 32x50257, whole float4 rows
        {1, 10000000, softmax_fused_e32_s48, 98304, {holds<512, 5, 14>(2)}},
    };
    int nextSet = 0;
    for (Shape& sh : shapes) {
        const long long n = (long long)sh.rows * sh.cols, nvRow = sh.cols / 4;
        const int cols = sh.cols;
        std::vector<Variant> vs;
        b.floors(vs, n);
        {
            Fused f = sh.champ;
            const int chunks = 2 * sms / sh.rows, grid = sh.rows * chunks, smem = sh.champSmem;
            cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
            vs.push_back({"champion (softmax)", [=]() mutable {
                const float* xa = x; float* ya = y; int ca = cols, ka = chunks;
                void* args[] = {&xa, &ya, &ca, &ka};
                cudaLaunchCooperativeKernel((void*)f, grid, 512, args, smem, 0); }, SOFTMAX});
        }
        for (const HoldSet& hs : sh.sets) {
            const int chunks = hs.perSm * sms / sh.rows, grid = sh.rows * chunks, th = hs.threads, smem = hs.S * hs.threads * 16;
            const int set = nextSet++;
            char label[64];
            snprintf(label, sizeof label, "%d x %d", grid, th);
            const std::pair<const char*, Hold> ks[] = {{"hold", hs.none}, {"hold+counter", hs.counter}, {"hold+flags", hs.flags}};
            for (auto& kv : ks) {
                Hold f = kv.second;
                cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
                vs.push_back({std::string(kv.first) + " " + label, [=]() mutable {
                    const float4* xa = (const float4*)x; float4* ya = (float4*)y; long long na = nvRow; int ka = chunks, sa = set;
                    void* args[] = {&xa, &ya, &na, &ka, &sa};
                    cudaLaunchCooperativeKernel((void*)f, grid, th, args, smem, 0); }, PROBE_COPY});
            }
        }
        const std::vector<std::string> wrong = b.wrong(vs, sh.rows, sh.cols);
        char title[64];
        snprintf(title, sizeof title, "%dx%d", sh.rows, sh.cols);
        b.time(vs, rounds, title);
        unsigned gave = 0; cudaMemcpyFromSymbol(&gave, gave_up, 4);
        printf("  %s, spins given up: %u, wrong outputs: %zu", cudaGetErrorString(cudaGetLastError()), gave, wrong.size());
        for (auto& w : wrong) printf(" [%s]", w.c_str());
        printf("\n");
    }
    return 0;
}
