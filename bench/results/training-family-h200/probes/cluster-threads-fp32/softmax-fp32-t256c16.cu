/*@kevo
{
  "description": "builtin genome: in registers, cols <= 512 a row per 16-32 lanes, cols <= 16384 a row per block of 128-1024 threads; cols >= 8192 with rows <= sms: rows split over many blocks, in one launch (2 x 512 threads per SM, partials exchanged in slots) chunks of up to 32 floats per thread in registers, longer ones streamed twice, else chunk stats then merge and normalise; 16384 < cols <= 262144: a row on chip per cluster of up to 16 blocks of 256 threads (32 floats each in registers, 32 in shared memory); else a block per row, two reads",
  "dtype": "fp32",
  "workspace": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows))) * 8",
  "plans": [
    { "when": "cols <= 64", "launches": [
      { "kernel": "softmax_short_g16_n1", "grid": "cdiv(rows, 16)", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 128", "launches": [
      { "kernel": "softmax_short_g32_n1", "grid": "cdiv(rows, 8)", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 256", "launches": [
      { "kernel": "softmax_short_g32_n2", "grid": "cdiv(rows, 8)", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 512", "launches": [
      { "kernel": "softmax_short_g32_n4", "grid": "cdiv(rows, 8)", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 2048", "launches": [
      { "kernel": "softmax_fused_e4", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows"] } ] },
    { "when": "((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 4096", "launches": [
      { "kernel": "softmax_fused_e8", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows"] } ] },
    { "when": "((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 8192", "launches": [
      { "kernel": "softmax_fused_e16", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows"] } ] },
    { "when": "((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 16384", "launches": [
      { "kernel": "softmax_fused_e32", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows"] } ] },
    { "when": "((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 43008", "launches": [
      { "kernel": "softmax_fused_e32_s52", "grid": "rows * (2 * sms / rows)", "block": 512, "smem": "106496", "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows"] } ] },
    { "when": "((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 2097152", "launches": [
      { "kernel": "softmax_fused_stream", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows"] } ] },
    { "when": "(cols >= 8192 && rows <= sms) || cols > 2097152", "launches": [
      { "kernel": "softmax_split_stats", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))"] },
      { "kernel": "softmax_split_norm", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "y", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))"] } ] },
    { "when": "cols > 16384 && cols <= 262144", "launches": [
      { "kernel": "softmax_cluster_t256_r8_s8", "grid": "rows * cdiv(cols, 16384)", "block": 256, "smem": "32768", "cluster": "cdiv(cols, 16384)", "args": ["x", "y", "cols"] } ] },
    { "when": "cols <= 1024", "launches": [
      { "kernel": "softmax_block_t128_n8", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 2048", "launches": [
      { "kernel": "softmax_block_t128_n16", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 4096", "launches": [
      { "kernel": "softmax_block_t256_n16", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 8192", "launches": [
      { "kernel": "softmax_block_t512_n16", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "cols <= 16384", "launches": [
      { "kernel": "softmax_block_t1024_n16", "grid": "rows", "block": 1024, "args": ["x", "y", "rows", "cols"] } ] },
    { "when": "true", "launches": [
      { "kernel": "softmax_loop", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols"] } ] }
  ]
}
*/
#include "kevo.h"

// Rendered by kevo's built-in agent from the genome
// {"short":{"maxCols":512,"minLanes":16,"growth":2,"threads":256,"vec":4,"online":false,"exp":"EXP2","load":"PLAIN","store":"PLAIN","skipMasked":false},"block":{"maxCols":16384,"minThreads":128,"maxThreads":1024,"elems":16,"firstElems":8,"vec":1,"online":false,"reduce":"SHUFFLE","exp":"EXP2","load":"PLAIN","store":"PLAIN","minBlocks":0,"skipMasked":false},"split":{"minCols":8192,"rowsPct":100,"minChunk":4096,"blocksPerSm":8,"reverse":true,"pass":{"threads":256,"vec":4,"tile":4,"unroll":1,"online":false,"reduce":"SHUFFLE","exp":"EXP2","statsLoad":"PLAIN","normLoad":"LDCS","store":"STCS"},"fused":{"elems":32,"smem":13,"threads":512,"blocksPerSm":2,"vec":4,"stream":true,"reduce":"SHUFFLE","exp":"EXP2","load":"PLAIN","store":"PLAIN"}},"cluster":{"minCols":16384,"maxCluster":16,"threads":256,"regVecs":8,"smemVecs":8,"group":0,"fit":false,"load":"PLAIN","store":"PLAIN","skipMasked":false},"loop":{"gridCap":0,"pass":{"threads":512,"vec":4,"tile":2,"unroll":1,"online":false,"reduce":"SHUFFLE","exp":"EXP2","statsLoad":"PLAIN","normLoad":"LDCS","store":"STCS"}}}

// Gene encodings: each *Cfg struct below names one regime's choices with these.
enum { EXP_ACCURATE = 0, EXP_FAST = 1, EXP_EXP2 = 2 };
enum { LOAD_PLAIN = 0, LOAD_LDG = 1, LOAD_LDCG = 2, LOAD_LDCS = 3 };
enum { STORE_PLAIN = 0, STORE_STCG = 1, STORE_STCS = 2 };
enum { REDUCE_SHUFFLE = 0, REDUCE_SMEM = 1 };

// x and y hold float, kevo_bf16 or kevo_half (the file's dtype, kevo.h); every value is a float once read, so all
// arithmetic and accumulation is float32. Vec<T, V> is one access of V consecutive elements of T: W, the type it
// moves, and W to and from V floats (scaled on the way out). Floats move as float, float2 and float4; 16-bit elements
// as plain words of as many bytes, which the cache-hint intrinsics take (they know no 16-bit struct). Eight floats are
// two float4: what a bf16-fp32 thread stores for one 16-byte load of x.
template <class T, int V> struct Vec;
template <class T, int V> using VecW = typename Vec<T, V>::W;

template <> struct Vec<float, 1> {
    typedef float W;
    static __device__ __forceinline__ void unpack(W w, float* o) { o[0] = w; }
    static __device__ __forceinline__ W pack(const float* v, float scale) { return v[0] * scale; }
};
template <> struct Vec<float, 2> {
    typedef float2 W;
    static __device__ __forceinline__ void unpack(W w, float* o) { o[0] = w.x; o[1] = w.y; }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        return make_float2(v[0] * scale, v[1] * scale);
    }
};
template <> struct Vec<float, 4> {
    typedef float4 W;
    static __device__ __forceinline__ void unpack(W w, float* o) { o[0] = w.x; o[1] = w.y; o[2] = w.z; o[3] = w.w; }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        return make_float4(v[0] * scale, v[1] * scale, v[2] * scale, v[3] * scale);
    }
};
template <class W> struct Two { W lo, hi; };
template <> struct Vec<float, 8> {
    typedef Two<float4> W;
    static __device__ __forceinline__ void unpack(W w, float* o) {
        Vec<float, 4>::unpack(w.lo, o);
        Vec<float, 4>::unpack(w.hi, o + 4);
    }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        return W{Vec<float, 4>::pack(v, scale), Vec<float, 4>::pack(v + 4, scale)};
    }
};

template <int BYTES> struct Bits;
template <> struct Bits<2> { typedef unsigned short T; };
template <> struct Bits<4> { typedef unsigned T; };
template <> struct Bits<8> { typedef uint2 T; };
template <> struct Bits<16> { typedef uint4 T; };

__device__ __forceinline__ void split_words(unsigned w, unsigned* u) { u[0] = w; }
__device__ __forceinline__ void split_words(uint2 w, unsigned* u) { u[0] = w.x; u[1] = w.y; }
__device__ __forceinline__ void split_words(uint4 w, unsigned* u) { u[0] = w.x; u[1] = w.y; u[2] = w.z; u[3] = w.w; }
__device__ __forceinline__ void join_words(const unsigned* u, unsigned& w) { w = u[0]; }
__device__ __forceinline__ void join_words(const unsigned* u, uint2& w) { w = make_uint2(u[0], u[1]); }
__device__ __forceinline__ void join_words(const unsigned* u, uint4& w) { w = make_uint4(u[0], u[1], u[2], u[3]); }

// 16-bit elements, little-endian: the element at the lower address is a word's low half. Rounded to nearest even.
template <class T, int V> struct Vec16 {
    typedef typename Bits<2 * V>::T W;
    static __device__ __forceinline__ void unpack(W w, float* o) {
        if constexpr (V == 1) {
            o[0] = kevo_to_float(T{w});
        } else {
            unsigned u[V / 2];
            split_words(w, u);
#pragma unroll
            for (int i = 0; i < V / 2; ++i) {
                o[2 * i] = kevo_to_float(T{(unsigned short)(u[i] & 0xffffu)});
                o[2 * i + 1] = kevo_to_float(T{(unsigned short)(u[i] >> 16)});
            }
        }
    }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        if constexpr (V == 1) {
            return kevo_from_float<T>(v[0] * scale).bits;
        } else {
            unsigned u[V / 2];
#pragma unroll
            for (int i = 0; i < V / 2; ++i) {
                u[i] = (unsigned)kevo_from_float<T>(v[2 * i] * scale).bits
                       | ((unsigned)kevo_from_float<T>(v[2 * i + 1] * scale).bits << 16);
            }
            W w;
            join_words(u, w);
            return w;
        }
    }
};
template <class T> struct IsBf16 { static constexpr bool value = false; };
template <> struct IsBf16<kevo_bf16> { static constexpr bool value = true; };
template <int V> struct Vec<kevo_bf16, V> : Vec16<kevo_bf16, V> {};
template <int V> struct Vec<kevo_half, V> : Vec16<kevo_half, V> {};

template <int HINT, class T> __device__ __forceinline__ T load(const T* p) {
    if constexpr (HINT == LOAD_LDG) return __ldg(p);
    else if constexpr (HINT == LOAD_LDCG) return __ldcg(p);
    else if constexpr (HINT == LOAD_LDCS) return __ldcs(p);
    else return *p;
}

template <int HINT, class T> __device__ __forceinline__ void store(T* p, T v) {
    if constexpr (HINT == STORE_STCG) __stcg(p, v);
    else if constexpr (HINT == STORE_STCS) __stcs(p, v);
    else *p = v;
}

template <int HINT, class W> __device__ __forceinline__ void store(Two<W>* p, Two<W> v) {
    store<HINT>(&p->lo, v.lo);
    store<HINT>(&p->hi, v.hi);
}

// One element: the peeled heads and tails of rows that are not vector-aligned.
template <int HINT, class T> __device__ __forceinline__ float load_one(const T* p) {
    float v;
    Vec<T, 1>::unpack(load<HINT>(reinterpret_cast<const VecW<T, 1>*>(p)), &v);
    return v;
}

template <int HINT, class T> __device__ __forceinline__ void store_one(T* p, float v, float scale) {
    store<HINT>(reinterpret_cast<VecW<T, 1>*>(p), Vec<T, 1>::pack(&v, scale));
}

// exp(v - m) with the difference taken first, in every mode: a row masked with the lowest finite float (-3.4e38,
// as Hugging Face masks) has m = v there, and exp(0) = 1 is the right answer. Folding m into one fma with log2(e)
// (v * log2e - m * log2e) overflows m * log2e to -inf on such a row and gives inf - inf.
// The modes: ACCURATE is expf; EXP2 is exp2f of the difference times log2(e), the hardware exponential and a fix-up
// for results below 2^-126 (a compare and two multiplies an element); FAST is the hardware exponential alone
// (ex2.approx.ftz), those results flushed to 0. A flushed exp(v - m) is a weight below 1.2e-38 of a row whose own max
// weighs 1: no output moves by more than that absolute amount, far inside every operator's tolerance. The fix-up is
// three of the few instructions an element has in the kernels that hold a 16-bit row on chip, which are
// issue-bound.
template <int EXP> struct Num {
    // exp(v - m); 0 when v is -inf (m must be finite then).
    static __device__ __forceinline__ float exp_from(float v, float m) {
        if constexpr (EXP == EXP_FAST) {
            float e;
            asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"((v - m) * KEVO_LOG2E));
            return e;
        } else if constexpr (EXP == EXP_EXP2) {
            return exp2f((v - m) * KEVO_LOG2E);
        } else {
            return expf(v - m);
        }
    }
};

// The mode of the cluster kernels, whose regime has no exp gene: FAST for a 16-bit x, whose rows held on chip are
// issue-bound, EXP2 for float32, whose cluster kernels ran no faster with FAST (bench/results/training-family-h200/,
// call 25).
template <class X> constexpr int cluster_exp = sizeof(X) == 2 ? EXP_FAST : EXP_EXP2;

// A partial softmax: max m over some elements, s = sum of exp(v - max) over them; (-inf, 0) when empty.
struct Stat { float m, s; };

template <int EXP> struct MergeOp {
    __device__ __forceinline__ Stat operator()(Stat a, Stat b) const {
        const float m = fmaxf(a.m, b.m);
        if (m == -KEVO_INF) return a;  // both empty: exp(-inf - -inf) would be NaN
        return Stat{m, a.s * Num<EXP>::exp_from(a.m, m) + b.s * Num<EXP>::exp_from(b.m, m)};
    }
};
struct MaxOp { __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct SumOp { __device__ __forceinline__ float operator()(float a, float b) const { return a + b; } };

__device__ __forceinline__ float shfl_xor(float v, int o) { return __shfl_xor_sync(KEVO_FULL_MASK, v, o); }
__device__ __forceinline__ Stat shfl_xor(Stat v, int o) { return Stat{shfl_xor(v.m, o), shfl_xor(v.s, o)}; }

// Butterfly over aligned groups of W lanes: every lane ends with its group's result. All 32 lanes call it.
template <int W, class T, class Op> __device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) v = op(v, shfl_xor(v, o));
    return v;
}

// Reduction over aligned groups of G threads (G a power of two), result in every thread: a warp
// butterfly for G <= 32, else G is the whole block. Block reductions get their own shared array per
// value type and operator; the closing barrier lets the next row reuse it.
template <int G, int STYLE, class T, class Op> __device__ __forceinline__ T group_reduce(T v, Op op) {
    if constexpr (G <= 32) {
        return warp_reduce<G>(v, op);
    } else if constexpr (STYLE == REDUCE_SHUFFLE) {
        constexpr int WARPS = G / 32;
        __shared__ T sh[WARPS];
        v = warp_reduce<32>(v, op);
        if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
        __syncthreads();
        // Every group of WARPS lanes holds all warp results, so every lane gets the total.
        v = warp_reduce<WARPS>(sh[threadIdx.x & (WARPS - 1)], op);
        __syncthreads();
        return v;
    } else {
        __shared__ T sh[G];
        sh[threadIdx.x] = v;
        __syncthreads();
#pragma unroll
        for (int o = G / 2; o > 0; o >>= 1) {
            if ((int)threadIdx.x < o) sh[threadIdx.x] = op(sh[threadIdx.x], sh[threadIdx.x + o]);
            __syncthreads();
        }
        v = sh[0];
        __syncthreads();
        return v;
    }
}

// A row seen as up to V-1 scalar head elements (up to the first V-aligned element), nv aligned vectors
// of V elements, then up to V-1 scalar tail elements. x and y are 16-byte aligned, rows are not: a
// vector is at most 16 bytes of x, and a store of 32 bytes of y is two of 16.
struct Peel { int head, nv, tail; };

template <int V> __device__ __forceinline__ Peel peel(long long base, int cols) {
    const int head = V == 1 ? 0 : min(cols, (int)((V - (base & (V - 1))) & (V - 1)));
    const int nv = (cols - head) / V;
    return Peel{head, nv, cols - head - nv * V};
}

// Whole rows in registers. A row belongs to a group of G threads: G <= 32 lanes of one warp (a warp
// holds 32 / G rows) or the whole block (G == THREADS). Each thread keeps N vectors and, for unaligned
// rows, one head and one tail element (threads below head / tail, so G >= V - 1). The plan guarantees
// cols <= G * N * V. Loops over v[] are fully unrolled so v[] is indexed by constants and stays in
// registers; x is read once and y written once.
template <class C, int THREADS, int G, int N, class X, class Y>
__device__ __forceinline__ void register_rows(const X* __restrict__ x, Y* __restrict__ y, int rows, int cols) {
    constexpr int V = C::VEC, RPB = THREADS / G;
    typedef Vec<X, V> XV;
    typedef Vec<Y, V> YV;
    typedef Num<C::EXP> K;
    const int lane = threadIdx.x & (G - 1);
    // No row loop: the grid, cdiv(rows, RPB), never exceeds rows, and NVRTC 11.8 fails with "unsupported
    // operation" on a row loop around this body when V == 2 and N >= 4.
    // A warp with no row leaves as a whole, so the shuffles below always have all 32 lanes.
    if (G <= 32 && (long long)blockIdx.x * RPB + (threadIdx.x >> 5) * (32 / G) >= rows) return;
    const long long row = (long long)blockIdx.x * RPB + threadIdx.x / G;
    const bool live = row < rows;  // false only for groups past the last row in a shared warp
    const long long base = row * cols;
    const Peel p = peel<V>(base, cols);
    const X* xr = x + base;
    Y* yr = y + base;
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(yr + p.head);

    float v[N * V];
    float h = -KEVO_INF, t = -KEVO_INF;  // padding as -inf vanishes in both max and exp
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int q = lane + k * G;
        if (live && q < p.nv) {
            XV::unpack(load<C::LOAD>(xv + q), v + k * V);
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) v[k * V + e] = -KEVO_INF;
        }
    }
    if (V > 1 && live) {
        if (lane < p.head) h = load_one<C::LOAD>(xr + lane);
        if (lane < p.tail) t = load_one<C::LOAD>(xr + p.head + p.nv * V + lane);
    }
    float m = fmaxf(h, t);
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);

    float scale;  // y = exp(v - own max) * scale
    if constexpr (C::ONLINE) {
        // One reduction of (max, sum) pairs instead of two; exponents are taken against this
        // thread's own max and rescaled once. A thread with only -inf takes exps against 0 (its exps are 0).
        const float km = m;
        const float kr = m == -KEVO_INF ? 0.0f : km;
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
        h = K::exp_from(h, kr);
        t = K::exp_from(t, kr);
        const Stat st = group_reduce<G, C::REDUCE>(Stat{km, s + h + t}, MergeOp<C::EXP>());
        scale = K::exp_from(km, st.m) / st.s;
    } else {
        const float km = group_reduce<G, C::REDUCE>(m, MaxOp());  // finite: every row has a finite entry
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], km); s += v[i]; }
        h = K::exp_from(h, km);
        t = K::exp_from(t, km);
        scale = 1.0f / group_reduce<G, C::REDUCE>(s + h + t, SumOp());
    }

    if (live) {
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const int q = lane + k * G;
            if (q < p.nv) store<C::STORE>(yv + q, YV::pack(v + k * V, scale));
        }
        if (V > 1) {
            if (lane < p.head) store_one<C::STORE>(yr + lane, h, scale);
            if (lane < p.tail) store_one<C::STORE>(yr + p.head + p.nv * V + lane, t, scale);
        }
    }
}

// Folds n elements into a running Stat. ONLINE: element by element (a rescale whenever the max grows);
// otherwise the tile's max first, then its exps with one rescale of the running sum.
template <class C, int n> __device__ __forceinline__ void accumulate(Stat& st, const float* v) {
    typedef Num<C::EXP> K;
    if constexpr (C::ONLINE) {
#pragma unroll
        for (int i = 0; i < n; ++i) {
            const float k = v[i];
            if (k > st.m) {
                st.s = st.s * K::exp_from(st.m, k) + K::exp_from(v[i], k);
                st.m = k;
            } else if (v[i] != -KEVO_INF) {  // -inf adds 0, and exp(-inf - -inf) would be NaN
                st.s += K::exp_from(v[i], st.m);
            }
        }
    } else {
        float m = v[0];
#pragma unroll
        for (int i = 1; i < n; ++i) m = fmaxf(m, v[i]);
        if (m == -KEVO_INF) return;
        const float k = fmaxf(st.m, m);
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < n; ++i) s += K::exp_from(v[i], k);
        st.s = st.s * K::exp_from(st.m, k) + s;
        st.m = k;
    }
}

// Streaming over part of a row: this thread's share of the aligned vectors [q0, q1), TILE vectors in
// flight per iteration, and with extras the row's peeled head and tail. q stays below 2^31 + the stride,
// so unsigned never wraps.
template <class C, class X> __device__ __forceinline__ Stat stream_stats(const X* xr, Peel p, unsigned q0,
                                                                      unsigned q1, bool extras) {
    constexpr int V = C::VEC, T = C::THREADS, TILE = C::TILE;
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    Stat st = {-KEVO_INF, 0.0f};
#pragma unroll C::UNROLL
    for (unsigned q = q0 + threadIdx.x; q < q1; q += T * TILE) {
        float v[TILE * V];
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            const unsigned qj = q + j * T;
            if (qj < q1) {
                Vec<X, V>::unpack(load<C::STATS_LOAD>(xv + qj), v + j * V);
            } else {
#pragma unroll
                for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
            }
        }
        accumulate<C, TILE * V>(st, v);
    }
    if (V > 1 && extras) {
        const float e[2] = {(int)threadIdx.x < p.head ? load_one<C::STATS_LOAD>(xr + threadIdx.x) : -KEVO_INF,
                            (int)threadIdx.x < p.tail ? load_one<C::STATS_LOAD>(xr + p.head + p.nv * V + threadIdx.x) : -KEVO_INF};
        accumulate<C, 2>(st, e);
    }
    return st;
}

// Writes y = exp(x - max) * inv over the same share of a row that stream_stats read.
template <class C, class X, class Y> __device__ __forceinline__ void stream_write(const X* xr, Y* yr, Peel p,
        unsigned q0, unsigned q1, bool extras, float k, float inv) {
    constexpr int V = C::VEC, T = C::THREADS, TILE = C::TILE;
    typedef Num<C::EXP> K;
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(yr + p.head);
#pragma unroll C::UNROLL
    for (unsigned q = q0 + threadIdx.x; q < q1; q += T * TILE) {
        float v[TILE * V];
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            const unsigned qj = q + j * T;
            if (qj < q1) Vec<X, V>::unpack(load<C::NORM_LOAD>(xv + qj), v + j * V);
        }
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            const unsigned qj = q + j * T;
            if (qj < q1) {
#pragma unroll
                for (int e = 0; e < V; ++e) v[j * V + e] = K::exp_from(v[j * V + e], k);
                store<C::STORE>(yv + qj, Vec<Y, V>::pack(v + j * V, inv));
            }
        }
    }
    if (V > 1 && extras) {
        if ((int)threadIdx.x < p.head) {
            store_one<C::STORE>(yr + threadIdx.x, K::exp_from(load_one<C::NORM_LOAD>(xr + threadIdx.x), k), inv);
        }
        if ((int)threadIdx.x < p.tail) {
            const int c = p.head + p.nv * V + threadIdx.x;
            store_one<C::STORE>(yr + c, K::exp_from(load_one<C::NORM_LOAD>(xr + c), k), inv);
        }
    }
}

// Chunk k of a row: an equal share of its aligned vectors; chunk 0 also takes the peeled head and tail.
struct Chunk { unsigned q0, q1; };
__device__ __forceinline__ Chunk chunk_of(Peel p, int k, int chunks) {
    const long long per = ((long long)p.nv + chunks - 1) / chunks;
    const long long q0 = min((long long)p.nv, k * per);
    return Chunk{(unsigned)q0, (unsigned)min((long long)p.nv, q0 + per)};
}

// The (max, sum) of chunk k of a row, for block b = row * chunks + k, merged across the block. An all
// -inf or empty chunk gives (-inf, 0), which the merge ignores.
template <class C, class X> __device__ __forceinline__ Stat chunk_stat(const X* __restrict__ x, int cols, int chunks) {
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<C::VEC>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const Stat st = stream_stats<C>(x + base, p, c.q0, c.q1, k == 0);
    return group_reduce<C::THREADS, C::REDUCE>(st, MergeOp<C::EXP>());
}

// Split rows, pass 1: block b stores its chunk's (max, sum) in ws[b].
template <class C, class X> __device__ __forceinline__ void split_stats(const X* __restrict__ x,
                                                                    float2* __restrict__ ws, int cols, int chunks) {
    const Stat st = chunk_stat<C>(x, cols, chunks);
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(st.m, st.s);
}

// A block's partials, one per thread, merged: the max first, then each sum rescaled to it once and plain
// sums (a (max, sum) merge at every step of the reduce costs two exponentials a step: 0.3 us more on
// each long-row shape of an H100, bench/results/long-rows-h100/exchange.txt).
template <class C, int THREADS> __device__ __forceinline__ Stat merge_partials(Stat st) {
    const float m = group_reduce<THREADS, C::REDUCE>(st.m, MaxOp());
    const float s = st.m == -KEVO_INF ? 0.0f : st.s * Num<C::EXP>::exp_from(st.m, m);
    return Stat{m, group_reduce<THREADS, C::REDUCE>(s, SumOp())};
}

// The (max, sum) of a row from its chunks' partials, read past L1 (other blocks wrote them).
template <class C, int THREADS> __device__ __forceinline__ Stat row_stat(const float2* part, int chunks) {
    Stat st = {-KEVO_INF, 0.0f};
    for (int i = threadIdx.x; i < chunks; i += THREADS) {
        const float2 q = __ldcg(part + i);
        st = MergeOp<C::EXP>()(st, Stat{q.x, q.y});
    }
    return merge_partials<C, THREADS>(st);
}

// Split rows, second half: block b normalises its own chunk with its row's (max, sum), re-reading x
// while it is likely still in L2.
template <class C, class X, class Y> __device__ __forceinline__ void split_write(const X* __restrict__ x,
        Y* __restrict__ y, Stat st, int cols, int chunks, int b) {
    const int row = b / chunks, k = b % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<C::VEC>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    stream_write<C>(x + base, y + base, p, c.q0, c.q1, k == 0, st.m, 1.0f / st.s);  // s >= 1: the max adds exp(0)
}

// Split rows, pass 2 of two launches: the row's partials from ws. REVERSE visits the chunks read last first.
template <class C, class X, class Y> __device__ __forceinline__ void split_norm(const X* __restrict__ x,
        Y* __restrict__ y, const float2* __restrict__ ws, int cols, int chunks) {
    const int b = C::REVERSE ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const Stat st = row_stat<C, C::THREADS>(ws + (long long)(b / chunks) * chunks, chunks);
    split_write<C>(x, y, st, cols, chunks, b);
}

// How the blocks of a one-launch plan meet (its when keeps the grid co-resident: at most blocksPerSm
// blocks of at most 1024 / blocksPerSm threads per SM). Each block publishes its chunk's (max, sum)
// in a slot of two 64-bit words {launch tag, value}: a partial and its readiness are one single-copy
// -atomic store, so the row's blocks poll the slots themselves and see the last partial one L2 round
// trip after it is stored. A counter barrier followed by a read of the partials took an arrival, a
// poll and the read: 0.9 us more at 8x128256 and 1.3 us more at 32x50257 on an H100, where clusters
// meeting in distributed shared memory were no faster (bench/results/long-rows-h100/exchange.txt).
// Slots are this module's globals: the workspace cannot hold them, its contents are undefined at every
// launch. A slot has a 128-byte line of its own, and only thread 0 reads the launch counter (below):
// with eight slots to a line, and every thread reading the counter on entry, the few lines that every
// block touches cost 0.7-0.8 us on the 4 MB shapes on an H100 (long-rows-h100/merge.txt, slots-a-line.txt).
#define KEVO_MAX_GRID 4096
#define KEVO_GRID_ROUND (1ull << 20)  // more blocks than any co-resident grid
#define KEVO_SLOT_WORDS 16
__device__ unsigned long long kevo_grid_arrivals = 0;
__device__ unsigned long long kevo_slots[KEVO_SLOT_WORDS * KEVO_MAX_GRID];

__device__ __forceinline__ unsigned& kevo_block_tag() { __shared__ unsigned tag; return tag; }

// The tag of this launch. Every launch adds exactly KEVO_GRID_ROUND to one counter (block 0 adds what the
// grid does not), after reading it: the count read on entry, in whole rounds, numbers the launches.
// Thread 0 reads it on entry; the block takes it from shared memory after its next barrier (launch_tag).
__device__ __forceinline__ void read_launch_tag() {
    if (gridDim.x > KEVO_MAX_GRID) __trap();
    if (threadIdx.x == 0) {
        unsigned long long c;
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(&kevo_grid_arrivals) : "memory");
        kevo_block_tag() = (unsigned)(c / KEVO_GRID_ROUND) + 1u;
    }
}
__device__ __forceinline__ unsigned launch_tag() { return kevo_block_tag(); }

// Thread 0 publishes the block's partial, then counts the block in (nobody waits on the count).
__device__ __forceinline__ void publish_partial(unsigned tag, Stat st) {
    if (threadIdx.x == 0) {
        const unsigned long long m = ((unsigned long long)tag << 32) | __float_as_uint(st.m);
        const unsigned long long s = ((unsigned long long)tag << 32) | __float_as_uint(st.s);
        asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" :: "l"(kevo_slots + KEVO_SLOT_WORDS * blockIdx.x), "l"(m), "l"(s) : "memory");
        const unsigned long long add = blockIdx.x == 0 ? KEVO_GRID_ROUND - gridDim.x + 1 : 1ull;
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" :: "l"(&kevo_grid_arrivals), "l"(add) : "memory");
    }
}

__device__ __forceinline__ Stat await_partial(int b, unsigned tag) {
    unsigned long long m, s;
    do {
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(m), "=l"(s) : "l"(kevo_slots + KEVO_SLOT_WORDS * b) : "memory");
    } while ((unsigned)(m >> 32) != tag || (unsigned)(s >> 32) != tag);
    return Stat{__uint_as_float((unsigned)m), __uint_as_float((unsigned)s)};
}

// The (max, sum) of the block's row: a thread waits on each of the row's slots, then the block merges.
template <class C, int THREADS> __device__ __forceinline__ Stat await_row(unsigned tag, int chunks) {
    const int first = blockIdx.x / chunks * chunks;
    Stat st = {-KEVO_INF, 0.0f};
    for (int i = threadIdx.x; i < chunks; i += THREADS) st = MergeOp<C::EXP>()(st, await_partial(first + i, tag));
    return merge_partials<C, THREADS>(st);
}

// One group of a thread's elements: exponentials against the group's own max, in place (none can overflow);
// its (max, sum), (-inf, 0) when all are -inf.
template <class K, int M> __device__ __forceinline__ Stat take_group(float* u) {
    float m = -KEVO_INF;
#pragma unroll
    for (int i = 0; i < M; ++i) m = fmaxf(m, u[i]);
    const float key = m == -KEVO_INF ? 0.0f : m;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < M; ++i) { u[i] = K::exp_from(u[i], key); s += u[i]; }
    return Stat{m == -KEVO_INF ? -KEVO_INF : key, s};
}

// A thread's groups (the register part's, then G more) merged into one (max, sum): the max first, then each group's
// sum rescaled to it once.
template <class K, int G> __device__ __forceinline__ Stat merge_groups(Stat reg, const Stat* grp) {
    float m = reg.m;
#pragma unroll
    for (int g = 0; g < G; ++g) m = fmaxf(m, grp[g].m);
    float s = reg.m == -KEVO_INF ? 0.0f : reg.s * K::exp_from(reg.m, m);
#pragma unroll
    for (int g = 0; g < G; ++g) s += grp[g].m == -KEVO_INF ? 0.0f : grp[g].s * K::exp_from(grp[g].m, m);
    return Stat{m, s};
}

// What a group's exponentials are scaled by at the write, given the row's max and 1 / its sum; 0 for an all -inf group.
template <class K> __device__ __forceinline__ float group_scale(Stat group, float rowMax, float inv) {
    return group.m == -KEVO_INF ? 0.0f : K::exp_from(group.m, rowMax) * inv;
}

// A thread's j-th vector of V floats in shared memory, in planes of up to four floats with the THREADS threads'
// slots of a plane side by side, so that a warp's access to a plane is consecutive: 32-byte slots (a 16-bit
// x's 8 elements) side by side would spread each 16-byte access of a warp over twice the banks' rows.
template <int V, int THREADS> struct Held {
    static constexpr int PLANES = V > 4 ? V / 4 : 1, PV = V > 4 ? 4 : V;
    typedef VecW<float, PV> Plane;
    static __device__ __forceinline__ void put(Plane* h, int j, const float* u) {
#pragma unroll
        for (int i = 0; i < PLANES; ++i) {
            h[(j * PLANES + i) * THREADS + threadIdx.x] = Vec<float, PV>::pack(u + i * PV, 1.0f);
        }
    }
    static __device__ __forceinline__ void get(const Plane* h, int j, float* u) {
#pragma unroll
        for (int i = 0; i < PLANES; ++i) {
            Vec<float, PV>::unpack(h[(j * PLANES + i) * THREADS + threadIdx.x], u + i * PV);
        }
    }
};

// Split rows in one launch, each block's chunk held on chip: N vectors per thread in registers and S more in
// dynamic shared memory (each thread its own slots, so no barrier guards them). Exponentials are taken as
// the chunk lands rather than after the block's max: the register part as one group, the shared part in
// groups of GS vectors, each group against its own max and kept where its elements were, with one (max,
// sum) a group. Taken after the block's max, 1x10^7's 80 exponentials a thread sat between the last load
// and the exchange: 33.1-33.4 us instead of 31.8-31.9 on an H100 (long-rows-h100/fused-groups.txt). A
// thread's groups merge into one (max, sum); the block reduces max first, then plain sums (merging (max,
// sum) pairs costs two exponentials a step); the partial is published and the row's partials awaited and
// merged; each group is written scaled by exp(group max - row max) / row sum. x is read once and y
// written once, like a copy. The plan keeps every chunk within THREADS * (N + S) vectors. Shared memory
// holds floats whatever x's dtype, V * 4 bytes a vector (Held), so that exponentials can replace x in place.
template <class C, int THREADS, int N, int S, class X, class Y>
__device__ __forceinline__ void split_fused(const X* __restrict__ x, Y* __restrict__ y, int cols, int chunks) {
    constexpr int V = C::VEC, GS = 2, G = (S + GS - 1) / GS;
    typedef Num<C::EXP> K;
    typedef Held<V, THREADS> H;
    static_assert(THREADS > 32, "the launch tag is read after a block reduce's barrier");
    read_launch_tag();
    extern __shared__ __align__(16) unsigned char kevo_dynamic_smem[];
    typename H::Plane* held = reinterpret_cast<typename H::Plane*>(kevo_dynamic_smem);
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const X* xr = x + base;
    Y* yr = y + base;
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(yr + p.head);
    const bool extras = V > 1 && k == 0;

    float v[N * V + 2];  // the register part, then the row's head and tail elements (block k == 0 only)
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) {
            Vec<X, V>::unpack(load<C::LOAD>(xv + q), v + j * V);
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
        }
    }
    v[N * V] = v[N * V + 1] = -KEVO_INF;
    if (extras) {
        if ((int)threadIdx.x < p.head) v[N * V] = load_one<C::LOAD>(xr + threadIdx.x);
        if ((int)threadIdx.x < p.tail) v[N * V + 1] = load_one<C::LOAD>(xr + p.head + p.nv * V + threadIdx.x);
    }
    const Stat reg = take_group<K, N * V + 2>(v);
    Stat grp[G > 0 ? G : 1];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        // Stored as it arrives, folding the group's max; then its exponentials, a vector at a time.
        float m = -KEVO_INF;
#pragma unroll
        for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
            const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
            if (q < c.q1) {
                float u[V];
                Vec<X, V>::unpack(load<C::LOAD>(xv + q), u);
                H::put(held, j, u);
#pragma unroll
                for (int e = 0; e < V; ++e) m = fmaxf(m, u[e]);
            }
        }
        const float key = m == -KEVO_INF ? 0.0f : m;
        float sum = 0.0f;
#pragma unroll
        for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
            if (c.q0 + threadIdx.x + (N + j) * THREADS < c.q1) {
                float u[V];
                H::get(held, j, u);
#pragma unroll
                for (int e = 0; e < V; ++e) { u[e] = K::exp_from(u[e], key); sum += u[e]; }
                H::put(held, j, u);
            }
        }
        grp[g] = Stat{m == -KEVO_INF ? -KEVO_INF : key, sum};
    }
    const Stat th = merge_groups<K, G>(reg, grp);
    const float kb = group_reduce<THREADS, C::REDUCE>(th.m, MaxOp());
    const float sb = group_reduce<THREADS, C::REDUCE>(th.m == -KEVO_INF ? 0.0f : th.s * K::exp_from(th.m, kb), SumOp());
    const unsigned tag = launch_tag();
    publish_partial(tag, Stat{kb, sb});
    const Stat rs = await_row<C, THREADS>(tag, chunks);
    const float inv = 1.0f / rs.s;  // s >= 1: the row max adds exp(0)
    const float fr = group_scale<K>(reg, rs.m, inv);
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, Vec<Y, V>::pack(v + j * V, fr));
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
        const float f = group_scale<K>(grp[g], rs.m, inv);
#pragma unroll
        for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
            const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
            if (q < c.q1) {
                float u[V];
                H::get(held, j, u);
                store<C::STORE>(yv + q, Vec<Y, V>::pack(u, f));
            }
        }
    }
    if (extras) {
        if ((int)threadIdx.x < p.head) store_one<C::STORE>(yr + threadIdx.x, v[N * V], fr);
        if ((int)threadIdx.x < p.tail) store_one<C::STORE>(yr + p.head + p.nv * V + threadIdx.x, v[N * V + 1], fr);
    }
}

// Split rows in one launch for chunks too long for registers: the two passes of the two-launch plan, with
// the partials exchanged in slots instead of a second launch.
template <class C, class X, class Y> __device__ __forceinline__ void split_fused_stream(const X* __restrict__ x,
        Y* __restrict__ y, int cols, int chunks) {
    static_assert(C::THREADS > 32, "the launch tag is read after a block reduce's barrier");
    read_launch_tag();
    const Stat st = chunk_stat<C>(x, cols, chunks);
    const unsigned tag = launch_tag();
    publish_partial(tag, st);
    split_write<C>(x, y, await_row<C, C::THREADS>(tag, chunks), cols, chunks, blockIdx.x);
}

// Rows of any length, a block per row (grid-stride over rows): one streaming pass for (max, sum), a
// block merge, then a second pass that re-reads the row (from L2 unless the row is huge) and writes.
template <class C, class X, class Y> __device__ __forceinline__ void loop_rows(const X* __restrict__ x,
        Y* __restrict__ y, int rows, int cols) {
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const long long base = row * cols;
        const Peel p = peel<C::VEC>(base, cols);
        Stat st = stream_stats<C>(x + base, p, 0, p.nv, true);
        st = group_reduce<C::THREADS, C::REDUCE>(st, MergeOp<C::EXP>());
        stream_write<C>(x + base, y + base, p, 0, p.nv, true, st.m, 1.0f / st.s);
    }
}

// A balanced tree of op over V values (V a power of two): the order a float4's lanes were folded in.
template <int V, class Op> __device__ __forceinline__ float tree(const float* u, Op op) {
    if constexpr (V == 1) return u[0];
    else return op(tree<V / 2>(u, op), tree<V / 2>(u + V / 2, op));
}

// Ends a group of this thread's cp.async copies, and waits until at most `pending` of its groups are still in flight:
// the instruction takes that count as an immediate, which `pending` becomes once the caller's loop is unrolled.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_pending(int pending) {
    switch (pending) {
        case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
        case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
        case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
        case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
        case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
        case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
        case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
        default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;  // waits longer than asked: still safe
    }
}

// Rows of many held on chip across a thread-block cluster (launched with "cluster": cdiv(cols, capacity)): block
// `rank` of the cluster holds a contiguous share of the row's aligned 16-byte vectors of x (V elements), N per thread
// in registers and S in shared memory (fetched by cp.async, so they do not pass through registers). The up to V - 1
// unaligned elements at each end go to the first and last block, with the register part.
// Exponentials are taken against a group's own max (exp(v - m) by the difference first, so a row of -FLT_MAX gives
// exp(0), not inf - inf): the register part is one group; the shared part is one more (C::GROUP 0: after the whole
// share has landed) or groups of C::GROUP vectors, one cp.async group each, taken in order as each lands. With one
// block to an SM and a wave's blocks in step, the memory idles through whatever a block computes between its last
// load and its exchange; groups leave only the last one's exponentials there, and cost their waits. A thread's
// groups merge into one (max, sum); the pairs merge over the block, then once across the cluster in distributed
// shared memory; each group is then written scaled by exp(group max - row max) / row sum.
// x is read once. A float x's exponentials replace it in shared memory. A 16-bit x's fit there only as 16-bit values:
// with a bf16 y they are kept as fp16, three bits finer than y, so the output's error stays near the rounded
// reference's, and the write is spared its unpacking, difference and exponential. With a float or fp16 y, fp16
// exponentials would cost accuracy, and the write takes them again from x (the same exponential of the same values).
template <class C, int THREADS, int N, int S, class X, class Y>
__device__ __forceinline__ void cluster_rows(const X* __restrict__ x, Y* __restrict__ y, int cols) {
    constexpr int V = 16 / sizeof(X);
    constexpr int GS = C::GROUP > 0 && C::GROUP < S ? C::GROUP : (S > 0 ? S : 1), G = (S + GS - 1) / GS;
    constexpr bool KEEP = sizeof(X) == sizeof(float);
    constexpr bool KEEP_HALF = sizeof(X) == 2 && IsBf16<Y>::value;
    typedef Num<cluster_exp<X>> K;
    typedef Vec<kevo_half, V> HV;  // fp16 exponentials in a 16-bit x's slots: the same 16-byte word
    typedef Vec<X, V> XV;
    typedef Vec<Y, V> YV;
    extern __shared__ __align__(16) unsigned char kevo_dynamic_smem[];
    VecW<X, V>* held = reinterpret_cast<VecW<X, V>*>(kevo_dynamic_smem);
    __shared__ KevoClusterExchange<float2> stats;  // the blocks' (max, sum) pairs
    stats.begin();
    const float NEG = -KEVO_INF;
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    const long long base = (long long)(blockIdx.x / size) * cols;
    const Peel p = peel<V>(base, cols);
    const int per = kevo_cdiv(p.nv, (int)size);
    const int v0 = (int)rank * per, v1 = min(v0 + per, p.nv);
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(x + base + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(y + base + p.head);
    const int t = threadIdx.x;
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            const int i = v0 + t + (N + k) * THREADS;
            kevo_cp_async16(&held[k * THREADS + t], xv + (i < v1 ? i : 0), i < v1);
        }
        cp_async_commit();
    }
    float neg[V];
#pragma unroll
    for (int e = 0; e < V; ++e) neg[e] = NEG;
    const VecW<X, V> none = XV::pack(neg, 1.0f);  // -inf in x's type: padding that vanishes in max and exp
    float r[N * V + 2];  // the register part, then the row's head and tail elements (first and last block only)
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int i = v0 + t + k * THREADS;
        XV::unpack(i < v1 ? load<C::LOAD>(xv + i) : none, r + k * V);
    }
    r[N * V] = rank == 0 && t < p.head ? load_one<C::LOAD>(x + base + t) : NEG;
    r[N * V + 1] = rank == size - 1 && t < p.tail ? load_one<C::LOAD>(x + base + p.head + (long long)V * p.nv + t) : NEG;
    const Stat reg = take_group<K, N * V + 2>(r);
    Stat grp[G > 0 ? G : 1];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        cp_async_wait_pending(G - 1 - g);
        float m = NEG;
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            if (v0 + t + (N + k) * THREADS < v1) {
                float w[V];
                XV::unpack(held[k * THREADS + t], w);
                m = fmaxf(m, tree<V>(w, MaxOp()));
            }
        }
        const float key = m == NEG ? 0.0f : m;
        float s = 0.0f;
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            if (v0 + t + (N + k) * THREADS < v1) {
                float w[V];
                XV::unpack(held[k * THREADS + t], w);
#pragma unroll
                for (int e = 0; e < V; ++e) w[e] = K::exp_from(w[e], key);
                s += tree<V>(w, SumOp());
                if constexpr (KEEP) held[k * THREADS + t] = XV::pack(w, 1.0f);
                if constexpr (KEEP_HALF) held[k * THREADS + t] = HV::pack(w, 1.0f);
            }
        }
        grp[g] = Stat{m == NEG ? NEG : key, s};
    }
    // Keys are plain maxima here, merged by the exponential of their difference.
    Stat row = group_reduce<THREADS, REDUCE_SHUFFLE>(merge_groups<K, G>(reg, grp), MergeOp<EXP_FAST>());
    if (size > 1) {
        stats.exchange(make_float2(row.m, row.s));
        const float2 q = (t & 31) < (int)size ? stats.get(t & 31) : make_float2(NEG, 0.0f);
        row = warp_reduce<32>(Stat{q.x, q.y}, MergeOp<EXP_FAST>());
        stats.done();
    }
    const float inv = 1.0f / row.s;  // s >= 1 unless the row is all -inf: the row max adds exp(0)
    const float fr = group_scale<K>(reg, row.m, inv);
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int i = v0 + t + k * THREADS;
        if (i < v1) store<C::STORE>(yv + i, YV::pack(r + k * V, fr));
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
        const float f = group_scale<K>(grp[g], row.m, inv);
        const float key = grp[g].m == NEG ? 0.0f : grp[g].m;
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            const int i = v0 + t + (N + k) * THREADS;
            if (i < v1) {
                float w[V];
                if constexpr (KEEP_HALF) {
                    HV::unpack(held[k * THREADS + t], w);
                } else {
                    XV::unpack(held[k * THREADS + t], w);
                }
                if constexpr (!KEEP && !KEEP_HALF) {
#pragma unroll
                    for (int e = 0; e < V; ++e) w[e] = K::exp_from(w[e], key);
                }
                store<C::STORE>(yv + i, YV::pack(w, f));
            }
        }
    }
    if (rank == 0 && t < p.head) store_one<C::STORE>(y + base + t, r[N * V], fr);
    if (rank == size - 1 && t < p.tail) store_one<C::STORE>(y + base + p.head + (long long)V * p.nv + t, r[N * V + 1], fr);
    stats.finish();
}

struct ShortCfg {
    static constexpr int VEC = 4;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int LOAD = LOAD_PLAIN;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
};
struct BlockCfg {
    static constexpr int VEC = 1;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int LOAD = LOAD_PLAIN;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
};
struct SplitCfg {
    static constexpr int THREADS = 256;
    static constexpr int VEC = 4;
    static constexpr int TILE = 4;
    static constexpr int UNROLL = 1;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int STATS_LOAD = LOAD_PLAIN;
    static constexpr int NORM_LOAD = LOAD_LDCS;
    static constexpr int STORE = STORE_STCS;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
    static constexpr bool REVERSE = true;
};
struct FusedCfg {
    static constexpr int VEC = 4;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int LOAD = LOAD_PLAIN;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
};
struct FusedStreamCfg {
    static constexpr int THREADS = 512;
    static constexpr int VEC = 4;
    static constexpr int TILE = 4;
    static constexpr int UNROLL = 1;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int STATS_LOAD = LOAD_PLAIN;
    static constexpr int NORM_LOAD = LOAD_LDCS;
    static constexpr int STORE = STORE_STCS;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
};
struct ClusterCfg {
    static constexpr int LOAD = LOAD_PLAIN;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int GROUP = 0;
};
struct LoopCfg {
    static constexpr int THREADS = 512;
    static constexpr int VEC = 4;
    static constexpr int TILE = 2;
    static constexpr int UNROLL = 1;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int STATS_LOAD = LOAD_PLAIN;
    static constexpr int NORM_LOAD = LOAD_LDCS;
    static constexpr int STORE = STORE_STCS;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
};

extern "C" __global__ void __launch_bounds__(256) softmax_short_g16_n1(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<ShortCfg, 256, 16, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) softmax_short_g32_n1(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<ShortCfg, 256, 32, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) softmax_short_g32_n2(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<ShortCfg, 256, 32, 2>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) softmax_short_g32_n4(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<ShortCfg, 256, 32, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e4(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    split_fused<FusedCfg, 512, 1, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e8(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    split_fused<FusedCfg, 512, 2, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e16(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    split_fused<FusedCfg, 512, 4, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    split_fused<FusedCfg, 512, 8, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32_s52(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    split_fused<FusedCfg, 512, 8, 13>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_stream(const float* __restrict__ x, float* __restrict__ y, int cols, int chunks) {
    split_fused_stream<FusedStreamCfg>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_stats(const float* __restrict__ x, float2* __restrict__ ws, int cols, int chunks) {
    split_stats<SplitCfg>(x, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_norm(const float* __restrict__ x, float* __restrict__ y, const float2* __restrict__ ws, int cols, int chunks) {
    split_norm<SplitCfg>(x, y, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256, 4) softmax_cluster_t256_r8_s8(const float* __restrict__ x, float* __restrict__ y, int cols) {
    cluster_rows<ClusterCfg, 256, 8, 8>(x, y, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_block_t128_n8(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<BlockCfg, 128, 128, 8>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_block_t128_n16(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<BlockCfg, 128, 128, 16>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) softmax_block_t256_n16(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<BlockCfg, 256, 256, 16>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_block_t512_n16(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<BlockCfg, 512, 512, 16>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(1024) softmax_block_t1024_n16(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    register_rows<BlockCfg, 1024, 1024, 16>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_loop(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    loop_rows<LoopCfg>(x, y, rows, cols);
}
