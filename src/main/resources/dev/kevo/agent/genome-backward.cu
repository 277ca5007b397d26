// The backward operators' kernels, after the forward library (whose accesses, peel and reductions they use): dx from
// y and dy, both in x's type, whose row statistic is one dot product, the sum of term(y, dy) over the row, where the
// forward's is (max, sum). Accumulation is float32; the dot product is a sum of a few terms a thread, then a tree.
// A kernel here takes the genome's register and loop regimes' genes; the operator is the Grad struct of its section.
//@ softmax_backward

// softmax's backward: term y dy, dx = y (dy - dot). Where y is 0 (a masked entry) dx is exactly 0. y is its own
// weight (below).
template <int EXP> struct Grad {
    static constexpr bool WEIGHTED = false;
    static __device__ __forceinline__ float weight(float y) { return y; }
    static __device__ __forceinline__ float term(float y, float dy) { return y * dy; }
    static __device__ __forceinline__ float dx_weighted(float w, float dy, float dot) { return w * (dy - dot); }
    static __device__ __forceinline__ float dx(float y, float dy, float dot) { return dx_weighted(y, dy, dot); }
};
//@ log_softmax_backward

// log_softmax's backward: term dy, dx = dy - exp(y) dot. Where y is -inf (a masked entry) exp(y) is 0 in every exp
// mode and dx is exactly dy. exp(y) is the weight: a kernel may take it as y lands, apart from the write (term takes
// either, as it ignores its first argument).
template <int EXP> struct Grad {
    static constexpr bool WEIGHTED = true;
    static __device__ __forceinline__ float weight(float y) { return Num<EXP>::exp_from(y, 0.0f); }
    static __device__ __forceinline__ float term(float, float dy) { return dy; }
    static __device__ __forceinline__ float dx_weighted(float w, float dy, float dot) { return dy - w * dot; }
    static __device__ __forceinline__ float dx(float y, float dy, float dot) { return dx_weighted(weight(y), dy, dot); }
};
//@ end

// Whether this thread's warp holds no row of a register kernel (register_rows, grad_register_rows) whose groups of G threads hold a row each, THREADS a
// block: such a warp leaves as a whole, so that the shuffles of the warps that stay always have all 32 lanes. A group
// of the whole block never leaves here (the grid has no block past the last row).
template <int THREADS, int G> __device__ __forceinline__ bool warp_without_row(int rows) {
    return G <= 32 && (long long)blockIdx.x * (THREADS / G) + (threadIdx.x >> 5) * (32 / G) >= rows;
}

// Whole rows of y and dy in registers, as register_rows holds x: a row belongs to a group of G threads (G <= 32 lanes
// of one warp, or the whole block), each thread keeps N vectors of each and, for unaligned rows, one head and one tail
// element of each. The plan guarantees cols <= G * N * V. y and dy are read once and dx written once. Padding is
// 0 in both, whose term is 0 for either operator.
template <class C, int THREADS, int G, int N, class X, class Y>
__device__ __forceinline__ void grad_register_rows(const X* __restrict__ y, const X* __restrict__ dy,
                                                   Y* __restrict__ dx, int rows, int cols) {
    if (warp_without_row<THREADS, G>(rows)) return;
    constexpr int V = C::VEC;
    typedef Grad<C::EXP> D;
    const int lane = threadIdx.x & (G - 1);
    const long long row = (long long)blockIdx.x * (THREADS / G) + threadIdx.x / G;
    const bool live = row < rows;  // false only for groups past the last row in a shared warp
    const long long base = row * cols;
    const Peel p = peel<V>(base, cols);
    const VecW<X, V>* yv = reinterpret_cast<const VecW<X, V>*>(y + base + p.head);
    const VecW<X, V>* gv = reinterpret_cast<const VecW<X, V>*>(dy + base + p.head);
    VecW<Y, V>* dv = reinterpret_cast<VecW<Y, V>*>(dx + base + p.head);

    // Held as loaded (a 16-bit row's two elements a register) and unpacked where used: unpacked, a 16-bit row's
    // values took twice the registers, which bounded its blocks to half the SM's threads.
    VecW<X, V> ay[N], ag[N];
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int q = lane + k * G;
        if (live && q < p.nv) {
            ay[k] = load<C::LOAD>(yv + q);
            ag[k] = load<C::LOAD>(gv + q);
        } else {
            float z[V] = {};
            ay[k] = ag[k] = Vec<X, V>::pack(z, 1.0f);
        }
    }
    const long long tail = base + p.head + (long long)p.nv * V + lane;
    float ha = 0.0f, hg = 0.0f, ta = 0.0f, tg = 0.0f;
    if (V > 1 && live) {
        if (lane < p.head) { ha = load_one<C::LOAD>(y + base + lane); hg = load_one<C::LOAD>(dy + base + lane); }
        if (lane < p.tail) { ta = load_one<C::LOAD>(y + tail); tg = load_one<C::LOAD>(dy + tail); }
    }
    float s = D::term(ha, hg) + D::term(ta, tg);
#pragma unroll
    for (int k = 0; k < N; ++k) {
        float a[V], g[V];
        Vec<X, V>::unpack(ay[k], a);
        Vec<X, V>::unpack(ag[k], g);
#pragma unroll
        for (int e = 0; e < V; ++e) s += D::term(a[e], g[e]);
    }
    const float dot = group_reduce<G, C::REDUCE>(s, SumOp());
    if (!live) return;
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int q = lane + k * G;
        if (q < p.nv) {
            float a[V], g[V], o[V];
            Vec<X, V>::unpack(ay[k], a);
            Vec<X, V>::unpack(ag[k], g);
#pragma unroll
            for (int e = 0; e < V; ++e) o[e] = D::dx(a[e], g[e], dot);
            store<C::STORE>(dv + q, Vec<Y, V>::pack(o, 1.0f));
        }
    }
    if (V > 1) {
        if (lane < p.head) store_one<C::STORE>(dx + base + lane, D::dx(ha, hg, dot), 1.0f);
        if (lane < p.tail) store_one<C::STORE>(dx + tail, D::dx(ta, tg, dot), 1.0f);
    }
}

// Rows of any length, a block per row (grid-stride over rows): a pass that sums the row's terms, a block sum, then a
// pass that re-reads y and dy (from L2 unless the row is huge) and writes dx. A thread's sum is compensated (Kahan):
// a row of 10^7 columns gives a thread tens of thousands of terms, whose plain float32 sum could lose more than the
// tolerance allows against the sum of their magnitudes; compensated, the error does not grow with their number.
template <class C, class X, class Y> __device__ __forceinline__ void grad_loop_rows(const X* __restrict__ y,
        const X* __restrict__ dy, Y* __restrict__ dx, int rows, int cols) {
    constexpr int V = C::VEC;
    typedef Vec<X, V> XV;
    typedef Vec<Y, V> YV;
    typedef Grad<C::EXP> D;
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const long long base = row * cols;
        const Peel p = peel<V>(base, cols);
        const VecW<X, V>* yv = reinterpret_cast<const VecW<X, V>*>(y + base + p.head);
        const VecW<X, V>* gv = reinterpret_cast<const VecW<X, V>*>(dy + base + p.head);
        VecW<Y, V>* dv = reinterpret_cast<VecW<Y, V>*>(dx + base + p.head);
        const long long tail = base + p.head + (long long)p.nv * V + threadIdx.x;
        float s = 0.0f, c = 0.0f;  // the running sum and its lost low part
        for (unsigned q = threadIdx.x; q < (unsigned)p.nv; q += C::THREADS) {
            float a[V], g[V];
            XV::unpack(load<C::STATS_LOAD>(yv + q), a);
            XV::unpack(load<C::STATS_LOAD>(gv + q), g);
            float t = 0.0f;
#pragma unroll
            for (int e = 0; e < V; ++e) t += D::term(a[e], g[e]);
            const float u = t - c, w = s + u;
            c = (w - s) - u;
            s = w;
        }
        if ((int)threadIdx.x < p.head) s += D::term(load_one<C::STATS_LOAD>(y + base + threadIdx.x),
                                                     load_one<C::STATS_LOAD>(dy + base + threadIdx.x));
        if ((int)threadIdx.x < p.tail) s += D::term(load_one<C::STATS_LOAD>(y + tail),
                                                     load_one<C::STATS_LOAD>(dy + tail));
        const float dot = group_reduce<C::THREADS, C::REDUCE>(s - c, SumOp());
        for (unsigned q = threadIdx.x; q < (unsigned)p.nv; q += C::THREADS) {
            float a[V], g[V], o[V];
            XV::unpack(load<C::NORM_LOAD>(yv + q), a);
            XV::unpack(load<C::NORM_LOAD>(gv + q), g);
#pragma unroll
            for (int e = 0; e < V; ++e) o[e] = D::dx(a[e], g[e], dot);
            store<C::STORE>(dv + q, YV::pack(o, 1.0f));
        }
        if ((int)threadIdx.x < p.head) {
            store_one<C::STORE>(dx + base + threadIdx.x, D::dx(load_one<C::NORM_LOAD>(y + base + threadIdx.x),
                                                              load_one<C::NORM_LOAD>(dy + base + threadIdx.x), dot),
                                1.0f);
        }
        if ((int)threadIdx.x < p.tail) {
            store_one<C::STORE>(dx + tail, D::dx(load_one<C::NORM_LOAD>(y + tail), load_one<C::NORM_LOAD>(dy + tail),
                                                 dot), 1.0f);
        }
    }
}

// Rows of many held on chip across a thread-block cluster (launched with "cluster": cdiv(cols, capacity)), as
// cluster_rows holds x: block `rank` of the cluster holds a contiguous share of the row's aligned 16-byte vectors of y
// and of dy, N of each per thread in registers and S of each in shared memory (fetched by cp.async, so they do not
// pass through registers); the up to V - 1 unaligned elements at each end go to the first and last block, with the
// register part. The block's terms are summed, the blocks' sums once across the cluster in distributed shared memory,
// and each block writes dx for its share. y and dy are read once and dx written once. The exponential of
// log_softmax's weight is in the forward cluster kernel's mode (cluster_exp: its config names none), and taken as y
// lands where it can be kept: the register part's before the shared part's wait, a float y's shared part a vector
// at a time (one cp.async group each), kept in y's slot. Taken after the exchange, with a wave's blocks in step, the
// memory idled through them (bench/results/training-family-h200/, call 31).
template <class C, int THREADS, int N, int S, class X, class Y>
__device__ __forceinline__ void grad_cluster_rows(const X* __restrict__ y, const X* __restrict__ dy,
                                                  Y* __restrict__ dx, int cols) {
    constexpr int V = 16 / sizeof(X);
    typedef Vec<X, V> XV;
    typedef Vec<Y, V> YV;
    typedef Grad<cluster_exp<X>> D;
    // Whether y's slots keep its weights (a float y's). A 16-bit y's slot has no room for float weights, and fp16
    // weights (2^-11 relative) put dx = dy - w dot past its tolerance where dot is large (BackwardGpuTest, bf16): its
    // shared part's weights are taken at the write.
    constexpr bool KEEP_W = D::WEIGHTED && sizeof(X) == 4;
    extern __shared__ __align__(16) unsigned char kevo_dynamic_smem[];
    VecW<X, V>* held_y = reinterpret_cast<VecW<X, V>*>(kevo_dynamic_smem);
    VecW<X, V>* held_g = held_y + S * THREADS;
    __shared__ KevoClusterExchange<float> dots;  // the blocks' sums
    dots.begin();
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    const long long base = (long long)(blockIdx.x / size) * cols;
    const Peel p = peel<V>(base, cols);
    const int per = kevo_cdiv(p.nv, (int)size);
    const int v0 = (int)rank * per, v1 = min(v0 + per, p.nv);
    const VecW<X, V>* yv = reinterpret_cast<const VecW<X, V>*>(y + base + p.head);
    const VecW<X, V>* gv = reinterpret_cast<const VecW<X, V>*>(dy + base + p.head);
    VecW<Y, V>* dv = reinterpret_cast<VecW<Y, V>*>(dx + base + p.head);
    const long long tail = base + p.head + (long long)V * p.nv + threadIdx.x;
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < S; ++k) {
        const int i = v0 + t + (N + k) * THREADS;
        kevo_cp_async16(&held_y[k * THREADS + t], yv + (i < v1 ? i : 0), i < v1);
        kevo_cp_async16(&held_g[k * THREADS + t], gv + (i < v1 ? i : 0), i < v1);
        if constexpr (KEEP_W) cp_async_commit();
    }
    if constexpr (!KEEP_W) cp_async_commit();
    float a[N * V + 2], g[N * V + 2];  // the register part, then the row's head and tail elements
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int i = v0 + t + k * THREADS;
        if (i < v1) {
            XV::unpack(load<C::LOAD>(yv + i), a + k * V);
            XV::unpack(load<C::LOAD>(gv + i), g + k * V);
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) a[k * V + e] = g[k * V + e] = 0.0f;
        }
    }
    const bool head = rank == 0 && t < p.head, end = rank == size - 1 && t < p.tail;
    a[N * V] = head ? load_one<C::LOAD>(y + base + t) : 0.0f;
    g[N * V] = head ? load_one<C::LOAD>(dy + base + t) : 0.0f;
    a[N * V + 1] = end ? load_one<C::LOAD>(y + tail) : 0.0f;
    g[N * V + 1] = end ? load_one<C::LOAD>(dy + tail) : 0.0f;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N * V + 2; ++i) {
        a[i] = D::weight(a[i]);
        s += D::term(a[i], g[i]);
    }
    if constexpr (!KEEP_W) cp_async_wait_pending(0);
#pragma unroll
    for (int k = 0; k < S; ++k) {
        if constexpr (KEEP_W) cp_async_wait_pending(S - 1 - k);
        if (v0 + t + (N + k) * THREADS < v1) {
            float u[V], w[V];
            XV::unpack(held_y[k * THREADS + t], u);
            XV::unpack(held_g[k * THREADS + t], w);
#pragma unroll
            for (int e = 0; e < V; ++e) s += D::term(u[e], w[e]);
            if constexpr (KEEP_W) {
#pragma unroll
                for (int e = 0; e < V; ++e) u[e] = D::weight(u[e]);
                held_y[k * THREADS + t] = XV::pack(u, 1.0f);
            }
        }
    }
    float dot = group_reduce<THREADS, REDUCE_SHUFFLE>(s, SumOp());
    if (size > 1) {
        dots.exchange(dot);
        dot = warp_reduce<32>((t & 31) < (int)size ? dots.get(t & 31) : 0.0f, SumOp());
        dots.done();
    }
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int i = v0 + t + k * THREADS;
        if (i < v1) {
            float o[V];
#pragma unroll
            for (int e = 0; e < V; ++e) o[e] = D::dx_weighted(a[k * V + e], g[k * V + e], dot);
            store<C::STORE>(dv + i, YV::pack(o, 1.0f));
        }
    }
#pragma unroll
    for (int k = 0; k < S; ++k) {
        const int i = v0 + t + (N + k) * THREADS;
        if (i < v1) {
            float u[V], w[V];
            XV::unpack(held_y[k * THREADS + t], u);
            XV::unpack(held_g[k * THREADS + t], w);
#pragma unroll
            for (int e = 0; e < V; ++e) u[e] = D::dx_weighted(KEEP_W ? u[e] : D::weight(u[e]), w[e], dot);
            store<C::STORE>(dv + i, YV::pack(u, 1.0f));
        }
    }
    if (head) store_one<C::STORE>(dx + base + t, D::dx_weighted(a[N * V], g[N * V], dot), 1.0f);
    if (end) store_one<C::STORE>(dx + tail, D::dx_weighted(a[N * V + 1], g[N * V + 1], dot), 1.0f);
    dots.finish();
}
