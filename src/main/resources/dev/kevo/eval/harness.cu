// kevo's own kernels, shared by every operator: input generation, the float64 reference's walk over rows and the
// comparison, guards, digests, the L2 flush, the launch gate and the floor's copy. The operator's own file (under
// dev/kevo/task/op/) says what the reference computes. They are never evolved, and the
// candidate never sees their memory: the comparison holds every element of x to the generator bit for bit, and the
// reference is computed after the candidate's launch and poisoned once used, so a candidate that scribbles on x or
// hopes to find a copy of an answer lying around gains nothing.
#include "kevo.h"

typedef unsigned long long u64;

// KEVO_CASE_<InputCase>, KEVO_CASE_COUNT, KEVO_MASK_<MaskKind>, KEVO_MASK_COUNT, KEVO_POISON_Y (the 32-bit word
// unwritten output is filled with; for a 16-bit y both halves are one 16-bit NaN pattern), KEVO_POISON_WS (workspace,
// a quiet NaN), and KEVO_X and KEVO_Y (the element types of x and y, as candidates get them) are defined by
// TrustedKernels.constants() from the Java side, ahead of this file. x (and an additive mask) is generated in float and
// rounded to KEVO_X; everything after reads it as stored.

// The bits of one element, to compare with a pattern or with what was generated.
__device__ __forceinline__ unsigned kv_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned kv_bits(kevo_bf16 v) { return v.bits; }
__device__ __forceinline__ unsigned kv_bits(kevo_half v) { return v.bits; }
#define KV_POISON_Y_ELEMENT (sizeof(KEVO_Y) == 4 ? KEVO_POISON_Y : (KEVO_POISON_Y & 0xffffu))

// One unit in the last place of y's type at |v|: what rounding to that type may cost a correct kernel, beyond the
// float32 tolerance (a float y adds about 1.2e-7 relative, a bf16 one 2^-7). At and past the largest finite value
// the next value up is infinity, so the unit there is the spacing just below it: a finite bound, where an infinite
// one would let any finite answer pass (log_softmax's answers reach there; softmax's, at most 1, never do).
__device__ __forceinline__ double kv_ulp(float, double v) {
    const float a = fminf((float)fabs(v), FLT_MAX);
    const float up = nextafterf(a, KEVO_INF);
    return isinf(up) ? (double)a - nextafterf(a, 0.0f) : (double)up - a;
}
template <class T> __device__ __forceinline__ double kv_ulp(T, double v) {
    T r = kevo_from_float<T>((float)fabs(v));
    if (isinf(kevo_to_float(r))) r.bits = (unsigned short)(r.bits - 1);  // infinity's bits follow the largest finite's
    const T up{(unsigned short)(r.bits + 1)};
    const T below{(unsigned short)(r.bits - 1)};
    return isinf(kevo_to_float(up)) ? (double)kevo_to_float(r) - (double)kevo_to_float(below)
                                    : (double)kevo_to_float(up) - (double)kevo_to_float(r);
}

// Whether a finite answer ref, moved by bound toward larger magnitude, rounds to infinity in y's type: then the
// infinity of ref's sign is what a correct kernel may write (an fp16 log-probability of an entry masked with fp16's
// lowest value, -65504 - max - log(sum), rounds to -inf once max + log(sum) passes 16).
__device__ __forceinline__ bool kv_may_overflow(double ref, double bound) {
    return isinf(kevo_to_float(kevo_from_float<KEVO_Y>((float)(fabs(ref) + bound))));
}

// splitmix64: a counter-based generator, so element (r, c) of case k under seed s is the same value wherever
// and however often it is computed.
__device__ __forceinline__ u64 kv_mix(u64 z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// 64 bits drawn for counter k under seed: the sum of two streams of the seed. One stream alone is a bijection of
// seed ^ (a known value), so 24 of its bits in an element would narrow the seed to 2^40 candidates, few enough for
// a kernel to search on the GPU during a launch; with two streams summed, no element narrows it below 2^64.
__device__ __forceinline__ u64 kv_draw(u64 seed, u64 k) {
    return kv_mix(seed ^ kv_mix(k)) + kv_mix(kv_mix(seed ^ 0xD1B54A32D192ED03ull) ^ kv_mix(~k));
}

// A draw of row r's own (which column is kept, raised, or where a mask starts): counters far from any element's.
__device__ __forceinline__ u64 kv_row_draw(u64 seed, long long r, int which) {
    return kv_draw(seed, ~((u64)r * 4 + which));
}

// Uniform in [0, 1) with 24 random bits.
__device__ __forceinline__ float kv_u01(u64 seed, u64 i, u64 lane) {
    return (float)(kv_draw(seed, i * 4 + lane) >> 40) * (1.0f / 16777216.0f);
}

__device__ __forceinline__ float kv_normal(u64 seed, u64 i) {
    float u1 = 1.0f - kv_u01(seed, i, 0);  // (0, 1]: log stays finite
    float u2 = kv_u01(seed, i, 1);
    return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

// The lowest finite value of x's type, what Hugging Face masks scores with (torch.finfo(dtype).min): -FLT_MAX in
// float would round to -inf in bf16 and fp16, and a fully masked row would have nothing finite.
__device__ __forceinline__ float kv_lowest(float) { return -FLT_MAX; }
__device__ __forceinline__ float kv_lowest(kevo_bf16) { return kevo_to_float(kevo_bf16{0xFF7Fu}); }
__device__ __forceinline__ float kv_lowest(kevo_half) { return kevo_to_float(kevo_half{0xFBFFu}); }

// The input cases, one per InputCase: a case added there must get its generator here.
static_assert(KEVO_CASE_COUNT == 10, "an InputCase without a generator case in kv_value");
__device__ float kv_value(u64 seed, int kase, long long r, long long c, int cols) {
    u64 i = (u64)(r * cols + c);
    switch (kase) {
        case KEVO_CASE_NORMAL_1: return kv_normal(seed, i);
        case KEVO_CASE_NORMAL_4: return 4.0f * kv_normal(seed, i);
        case KEVO_CASE_NORMAL_20: return 20.0f * kv_normal(seed, i);
        case KEVO_CASE_LARGE_POSITIVE: return 500.0f + 500.0f * kv_u01(seed, i, 2);    // a naive exp overflows here
        case KEVO_CASE_LARGE_NEGATIVE: return -1000.0f + 500.0f * kv_u01(seed, i, 2);
        case KEVO_CASE_MASKED: {  // masked attention: about a third -inf, one guaranteed finite entry per row
            long long keep = (long long)(kv_row_draw(seed, r, 0) % (u64)cols);
            if (c != keep && kv_u01(seed, i, 3) < 0.35f) return -KEVO_INF;
            return 4.0f * kv_normal(seed, i);
        }
        case KEVO_CASE_CONSTANT: return 10.0f * kv_normal(seed, (u64)r * 0x100000001ull);  // constant rows
        case KEVO_CASE_DOMINANT: {  // one dominant entry per row
            long long hot = (long long)(kv_row_draw(seed, r, 1) % (u64)cols);
            return kv_normal(seed, i) + (c == hot ? 30.0f : 0.0f);
        }
        case KEVO_CASE_CAUSAL:  // a causal mask: a finite prefix of 1 to ceil(cols / 2) entries, then -inf to the end
        case KEVO_CASE_LOWEST_MASK: {  // the same, masked as Hugging Face masks: the lowest finite float, not -inf
            const float masked = kase == KEVO_CASE_CAUSAL ? -KEVO_INF : kv_lowest(KEVO_X{});
            if (kase == KEVO_CASE_LOWEST_MASK && r % 4 == 0) return masked;  // fully masked rows: torch gives 1/cols
            const long long prefix = 1 + (long long)(kv_row_draw(seed, r, 2) % (u64)((cols + 1) / 2));
            return c < prefix ? 4.0f * kv_normal(seed, i) : masked;
        }
        default: return NAN;
    }
}

// The labels' own counters: the value dy's stream (harness_backward.cu) had when the label was drawn there alone, so
// that an input seed replays the same labels.
#define KV_LABEL_STREAM 0x64792D6B65766F21ull

// Row r's label (a loss's, and the backward's loss-shaped gradients'): a drawn column whose x is finite, so that a
// loss never labels a masked entry. Only the masked case puts -inf at a drawn column, and it keeps one column finite
// (kv_value's keep); the causal case's column 0 is always finite (a prefix of at least one); no other case has -inf.
__device__ __forceinline__ long long kv_label(u64 seed, int kase, long long r, int cols) {
    const u64 s = kv_mix(seed ^ KV_LABEL_STREAM);
    const long long c = (long long)(kv_row_draw(s, r, 0) % (u64)cols);
    if (kv_value(seed, kase, r, c, cols) != -KEVO_INF) return c;
    return kase == KEVO_CASE_MASKED ? (long long)(kv_row_draw(seed, r, 0) % (u64)cols) : 0;
}

// The mask kinds, one per MaskKind: a kind added there must get its meaning in the operators that take it.
static_assert(KEVO_MASK_COUNT == 4, "a MaskKind the harness does not know");

// The tensors an attention mask brings, generated per case like x and held to it bit for bit. The cases about masks
// (causal, lowest-mask) put every kind at its edges: padding lengths of 0 (a batch entry's rows fully masked) and 1
// (masked all but one), additive mask rows fully masked and masked all but one. Elsewhere the masks are ordinary: a
// length drawn in [1, keys] (keys itself, nothing masked, in the constant case), and an additive mask about 30%
// masked at scattered keys, never at one drawn key, with a bias on the rest (non-zero, so that a kernel that scales
// the bias with the scores, or a maximum taken before the bias is added, is off).
#define KV_MASK_STREAM 0x6D61736B2D6B6576ull
__device__ __forceinline__ bool kv_mask_edges(int kase) {
    return kase == KEVO_CASE_CAUSAL || kase == KEVO_CASE_LOWEST_MASK;
}

__device__ int kv_length(u64 seed, int kase, long long b, int keys) {
    if (kase == KEVO_CASE_LOWEST_MASK) return b % 2 == 0 ? 0 : 1;
    if (kase == KEVO_CASE_CAUSAL) return b % 2 == 0 ? 1 : 0;
    if (kase == KEVO_CASE_CONSTANT) return keys;
    return 1 + (int)(kv_draw(kv_mix(seed ^ KV_MASK_STREAM), ~(u64)b) % (u64)keys);
}

// Entry (row, c) of the additive mask, row = b * queries + q: the lowest finite value of x's type where masked, else
// a bias.
__device__ float kv_mask_value(u64 seed, int kase, long long row, long long c, int keys) {
    const u64 s = kv_mix(seed ^ KV_MASK_STREAM);
    const float masked = kv_lowest(KEVO_X{});
    const int kind = kv_mask_edges(kase) ? (int)(row % 4) : 2;  // 0 fully masked, 1 all but one, else ordinary
    if (kind == 0) return masked;
    const long long keep = (long long)(kv_row_draw(s, row, 3) % (u64)keys);
    const u64 i = (u64)(row * keys + c);
    if (c != keep && (kind == 1 || kv_u01(s, i, 2) < 0.3f)) return masked;
    return 2.0f * kv_normal(s, i);
}

extern "C" __global__ void kevo_generate_lengths(int* lengths, int batch, int keys, u64 seed, int kase) {
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < batch; b += (long long)gridDim.x * blockDim.x) {
        lengths[b] = kv_length(seed, kase, b, keys);
    }
}

// While timing, each launch of the candidate reads an input set in which one element per row, at a column drawn
// from a per-launch salt, is raised to 30 + u (u in [0, 1)): the row's new maximum by far, so an output replayed from
// an earlier launch on the same set is wrong everywhere in the row. A kernel can only notice the change by reading
// the whole row, which is what computing the softmax costs anyway. Salt 0: no change.
__device__ __forceinline__ long long kv_salt_col(u64 salt, long long r, int cols) {
    return (long long)(kv_mix(salt ^ kv_mix((u64)r + 0x5A17ull)) % (u64)cols);
}

// The raised value of row r under salt (see above): element (r, kv_salt_col(salt, r, cols)) of a salted input set;
// every other element is kv_value's. It sits just above what the case's generator can reach (kv_normal's 24-bit
// uniforms bound it to 5.77 scales), so it becomes the row's maximum without making the row one-hot: a kernel timed
// on salted rows is timed on rows like users', not on its best case. Cases no timed launch uses keep a raise of 30.
__device__ __forceinline__ float kv_salt_value(u64 salt, long long r, int kase) {
    const float u = (float)(kv_mix(salt ^ ~(u64)r) >> 40) * (1.0f / 16777216.0f);
    switch (kase) {
        case KEVO_CASE_NORMAL_1: return 6.0f + u;
        case KEVO_CASE_NORMAL_4:
        case KEVO_CASE_MASKED: return 24.0f + 4.0f * u;
        default: return 30.0f + u;
    }
}

// A grid-stride walk over the elements of a rows x cols matrix that keeps (row, col) of element i up to date by
// addition: a 64-bit division per element cost about as much as generating the element.
struct KvWalk {
    long long i, r, c, stride, dr, dc;
    int cols;
    __device__ KvWalk(int cols_) : cols(cols_) {
        i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
        stride = (long long)gridDim.x * blockDim.x;
        r = i / cols;
        c = i - r * cols;
        dr = stride / cols;
        dc = stride - dr * cols;
    }
    __device__ __forceinline__ void next() {
        i += stride;
        r += dr;
        c += dc;
        if (c >= cols) { c -= cols; r++; }
    }
};

extern "C" __global__ void kevo_generate(KEVO_X* x, int rows, int cols, u64 seed, int kase) {
    long long n = (long long)rows * cols;
    for (KvWalk w(cols); w.i < n; w.next()) {
        x[w.i] = kevo_from_float<KEVO_X>(kv_value(seed, kase, w.r, w.c, cols));
    }
}

// The additive mask of batch * queries rows of keys entries.
extern "C" __global__ void kevo_generate_mask(KEVO_X* mask, int mask_rows, int keys, u64 seed, int kase) {
    const long long n = (long long)mask_rows * keys;
    for (KvWalk w(keys); w.i < n; w.next()) {
        mask[w.i] = kevo_from_float<KEVO_X>(kv_mask_value(seed, kase, w.r, w.c, keys));
    }
}

// Moves an input set from salt old_salt to new_salt (see kv_salt_col): per row, the old raised element gets its
// generated value back, then the new one is raised. One thread per row.
__device__ __forceinline__ void kv_perturb_rows(KEVO_X* x, int rows, int cols, u64 seed, int kase, u64 old_salt,
                                                u64 new_salt) {
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows; r += (long long)gridDim.x * blockDim.x) {
        if (old_salt != 0) {
            long long c = kv_salt_col(old_salt, r, cols);
            x[r * cols + c] = kevo_from_float<KEVO_X>(kv_value(seed, kase, r, c, cols));
        }
        if (new_salt != 0) {
            x[r * cols + kv_salt_col(new_salt, r, cols)] = kevo_from_float<KEVO_X>(kv_salt_value(new_salt, r, kase));
        }
    }
}

extern "C" __global__ void kevo_perturb(KEVO_X* x, int rows, int cols, u64 seed, int kase, u64 old_salt, u64 new_salt) {
    kv_perturb_rows(x, rows, cols, seed, kase, old_salt, new_salt);
}

// Sets words [0, n) of p (16-byte aligned) to pattern: 16-byte stores, then the tail.
__device__ __forceinline__ void kv_fill(unsigned* p, long long n, unsigned pattern) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const uint4 v = make_uint4(pattern, pattern, pattern, pattern);
    uint4* p4 = reinterpret_cast<uint4*>(p);
    for (long long i = first; i < n / 4; i += stride) p4[i] = v;
    for (long long i = n / 4 * 4 + first; i < n; i += stride) p[i] = pattern;
}

// Everything queued before one timed launch of a candidate, in one launch instead of a perturbation and two memsets
// (each separate operation costs a host call and a gap on the GPU): the input set it will read moves to its new
// salt, y_words of y get the unwritten-output poison and ws_words of the workspace the workspace poison, as before a
// checked launch, so that neither tells a timed launch from a checked one (0 words with the poison switched off,
// bench only); and an output of one element (a loss's value), where the operator has one (null where not), poisoned as
// the check poisons it.
extern "C" __global__ void kevo_prepare(KEVO_X* x, int rows, int cols, u64 seed, int kase, u64 old_salt, u64 new_salt,
                                        unsigned* y, long long y_words, unsigned* ws, long long ws_words,
                                        unsigned* reduced) {
    kv_perturb_rows(x, rows, cols, seed, kase, old_salt, new_salt);
    kv_fill(y, y_words, KEVO_POISON_Y);
    kv_fill(ws, ws_words, KEVO_POISON_WS);
    if (reduced != nullptr && y_words > 0 && blockIdx.x == 0 && threadIdx.x == 0) *reduced = KEVO_POISON_REDUCED;
}

// A block-wide sum in double over 256 threads.
#define KV_THREADS 256
__device__ double kv_block_sum(double v, double* scratch) {
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int s = KV_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
        __syncthreads();
    }
    double out = scratch[0];
    __syncthreads();
    return out;
}

// The reference and the comparison cut a rows x cols matrix into items of one row's chunk_cols columns (chunks =
// cdiv(cols, chunk_cols) a row), one warp an item over a grid-stride walk: a 128-column row keeps every lane busy, a
// 10^7-column row spreads over thousands of warps, and what is per row (the salted column, the row's statistics) is
// worked out once an item rather than once an element, which for the salted column (two mixes and a 64-bit
// remainder) cost as much as generating the element.
struct KvItems {
    long long b, items, warps;
    int lane, chunk_cols, chunks, cols;
    __device__ KvItems(int rows, int cols_, int chunk_cols_, int chunks_)
        : chunk_cols(chunk_cols_), chunks(chunks_), cols(cols_) {
        items = (long long)rows * chunks;
        warps = ((long long)gridDim.x * blockDim.x) >> 5;
        b = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
        lane = threadIdx.x & 31;
    }
    __device__ __forceinline__ long long row() const { return b / chunks; }
    __device__ __forceinline__ int begin() const { return (int)(b % chunks) * chunk_cols; }
    __device__ __forceinline__ int end() const { return min(cols, begin() + chunk_cols); }
};

// What an element's score may depend on beside the element: the rows' attention layout, the mask kind, the tensors it
// reads and the scale (docs/operators.md). A plain shape is one batch entry of one head whose queries are its rows,
// kind none, no tensors (null), scale 1.
struct KvAttention {
    int batch, heads, queries, keys, kind;
    float scale;
    const int* lengths;    // one per batch entry, under padding
    const KEVO_X* mask;    // batch x queries x keys, broadcast over heads, under additive
};

// Where row r sits in that layout: worked out once a row (an item), not once an element.
struct KvRowAt {
    long long r;
    int b, h, q;
};

__device__ __forceinline__ KvRowAt kv_row_at(const KvAttention& a, long long r) {
    KvRowAt at;
    at.r = r;
    at.q = (int)(r % a.queries);
    const long long bh = r / a.queries;
    at.h = (int)(bh % a.heads);
    at.b = (int)(bh / a.heads);
    return at;
}

// The operator's reference, defined by its own file (compiled right after this one; docs/operators.md): the score of
// an element (the element itself, or scaled and masked), a statistic of each row's scores in two doubles, folded in
// any order and merged from any split of the row, and the expected output of an element from its score and the row's
// statistic. The kernels below are the same for every operator: they only walk rows, reduce and compare.
__device__ __forceinline__ double kv_score(const KvAttention& a, const KvRowAt& at, int c, double x);  // of element x
__device__ __forceinline__ bool kv_exact(double score);                  // whether its output must be exactly ref
__device__ __forceinline__ double2 kv_stat_start();                     // the statistic of no elements
__device__ __forceinline__ double2 kv_stat_add(double2 s, double v);    // s with one more element v
__device__ __forceinline__ double2 kv_stat_merge(double2 s, double2 t); // the statistic of both parts
__device__ __forceinline__ double2 kv_row_prepare(double2 s);           // once a row, what kv_expected needs
__device__ __forceinline__ double kv_expected(double v, double2 row);   // the exact output of element v

__device__ __forceinline__ double2 kv_warp_merge(double2 s) {
    for (int o = 16; o > 0; o >>= 1) {
        double2 t = make_double2(__shfl_xor_sync(KEVO_FULL_MASK, s.x, o), __shfl_xor_sync(KEVO_FULL_MASK, s.y, o));
        s = kv_stat_merge(s, t);
    }
    return s;
}

__device__ double2 kv_block_merge(double2 s, double2* scratch) {
    scratch[threadIdx.x] = s;
    __syncthreads();
    for (int k = KV_THREADS / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) scratch[threadIdx.x] = kv_stat_merge(scratch[threadIdx.x], scratch[threadIdx.x + k]);
        __syncthreads();
    }
    double2 out = scratch[0];
    __syncthreads();
    return out;
}

// Row statistics in float64, in two steps so that one very long row still spreads over the whole GPU:
// kevo_reference_chunks writes the statistic of each item, and kevo_reference_merge combines a row's chunks into
// stats[r]. With one chunk a row the first one's output already is stats[r]: it writes there and the merge is not
// launched.
// It reads x as it is after the candidate's launch: kevo_compare, which always follows, holds every element of x to
// the generator bit for bit, so a candidate that changed x is rejected for that whatever this computed, and one
// that did not is checked against the reference of exactly the generated input. Generating the input again here
// cost as much as the comparison itself, on every checked timed launch.
#define KV_ATTENTION_PARAMS int batch, int heads, int queries, int kind, float scale, const int* lengths, const KEVO_X* mask
#define KV_ATTENTION(cols) KvAttention{batch, heads, queries, cols, kind, scale, lengths, mask}
extern "C" __global__ void kevo_reference_chunks(double2* partial, const KEVO_X* x, int rows, int cols, int chunk_cols,
                                                 int chunks, KV_ATTENTION_PARAMS) {
    const KvAttention a = KV_ATTENTION(cols);
    for (KvItems it(rows, cols, chunk_cols, chunks); it.b < it.items; it.b += it.warps) {
        const KvRowAt at = kv_row_at(a, it.row());
        const KEVO_X* row = x + it.row() * cols;
        const int end = it.end();
        double2 s = kv_stat_start();
        for (int c = it.begin() + it.lane; c < end; c += 32) {
            s = kv_stat_add(s, kv_score(a, at, c, (double)kevo_to_float(row[c])));
        }
        s = kv_warp_merge(s);
        if (it.lane == 0) partial[it.b] = s;
    }
}

extern "C" __global__ void kevo_reference_merge(double2* stats, double2* partial, int rows, int chunks) {
    __shared__ double2 scratch[KV_THREADS];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        double2 s = kv_stat_start();
        for (int k = threadIdx.x; k < chunks; k += KV_THREADS) s = kv_stat_merge(s, partial[(long long)r * chunks + k]);
        s = kv_block_merge(s, scratch);
        if (threadIdx.x == 0) stats[r] = s;
        // The chunks' statistics go once used (each thread overwrites only what it read): no partial answer stays in
        // memory, without a memset of its own after every checked launch.
        const double gone = __longlong_as_double(((long long)KEVO_POISON_WS << 32) | KEVO_POISON_WS);
        for (int k = threadIdx.x; k < chunks; k += KV_THREADS) partial[(long long)r * chunks + k] = make_double2(gone, gone);
    }
}

// What the comparison found; zeroed by the host before each check.
struct KevoCheck {
    u64 unwritten;     // still holding the poison pattern
    u64 nonfinite;     // NaN written, or Inf where no answer within the tolerance of ref rounds to it in y's type
    u64 violations;    // |y - ref| > abs + rel * |ref| + one unit in the last place of y's type at ref
    u64 x_changed;     // input bits (x's, the mask's, the lengths') differ from what was generated
    u64 first_bad;     // smallest index of any of the above (initialised to ~0)
    double err_sq;     // sum (y - ref)^2 over finite, written elements whose ref y's type holds finitely
    double ref_sq;     // sum ref^2 over those whose ref y's type holds finitely
    u64 max_err_bits;  // max |y - ref| as the bits of a non-negative double
    double round_sq;   // sum (ref rounded to y's type - ref)^2: the error of the best answer y's type can hold
};

// One block's counts into the whole comparison's: the counters and the first bad index as they are, the sums of
// squares summed over the block first (one atomic a block, not one a thread). Every compare kernel ends with it.
__device__ void kv_publish(KevoCheck* out, KevoCheck mine, double max_err, double* scratch) {
    if (mine.unwritten) atomicAdd(&out->unwritten, mine.unwritten);
    if (mine.nonfinite) atomicAdd(&out->nonfinite, mine.nonfinite);
    if (mine.violations) atomicAdd(&out->violations, mine.violations);
    if (mine.x_changed) atomicAdd(&out->x_changed, mine.x_changed);
    if (mine.first_bad != ~0ull) atomicMin(&out->first_bad, mine.first_bad);
    if (max_err > 0.0) atomicMax(&out->max_err_bits, (u64)__double_as_longlong(max_err));
    const double err_sq = kv_block_sum(mine.err_sq, scratch);
    const double ref_sq = kv_block_sum(mine.ref_sq, scratch);
    const double round_sq = kv_block_sum(mine.round_sq, scratch);
    if (threadIdx.x == 0) {
        atomicAdd(&out->err_sq, err_sq);
        atomicAdd(&out->ref_sq, ref_sq);
        atomicAdd(&out->round_sq, round_sq);
    }
}

// One element of an output bounded relative to a scale (a gradient's dx, a loss's dx), after the poison check: exactly
// ref where `exact` (an answer the operator holds exact: a masked entry's, an ignored row's), else finite and within
// bound; a finite error adds to the case's sums. Whether it is bad.
__device__ __forceinline__ bool kv_judge_scaled(float got, double ref, double bound, bool exact, u64& nonfinite,
                                                u64& violations, double& err_sq, double& max_err) {
    if (exact) {
        if ((double)got == ref) return false;
        if (isnan(got) || isinf(got)) nonfinite++; else violations++;
        return true;
    }
    if (isnan(got) || isinf(got)) { nonfinite++; return true; }
    const double err = fabs((double)got - ref);
    err_sq += err * err;
    max_err = fmax(max_err, err);
    if (err > bound) { violations++; return true; }
    return false;
}

extern "C" __global__ void kevo_compare(const KEVO_Y* y, const KEVO_X* x, const double2* stats, int rows, int cols,
                                        int chunk_cols, int chunks, u64 seed, int kase, u64 salt, double abs_tol,
                                        double rel_tol, KevoCheck* out, KV_ATTENTION_PARAMS) {
    __shared__ double scratch[KV_THREADS];
    const KvAttention a = KV_ATTENTION(cols);
    u64 unwritten = 0, nonfinite = 0, violations = 0, x_changed = 0, first_bad = ~0ull;
    double err_sq = 0.0, ref_sq = 0.0, max_err = 0.0, round_sq = 0.0;
    for (KvItems it(rows, cols, chunk_cols, chunks); it.b < it.items; it.b += it.warps) {
        const long long r = it.row();
        const KvRowAt at = kv_row_at(a, r);
        const long long raised_col = salt != 0 ? kv_salt_col(salt, r, cols) : -1;
        const float raised = salt != 0 ? kv_salt_value(salt, r, kase) : 0.0f;
        const double2 row_stat = kv_row_prepare(stats[r]);
        const int end = it.end();
        // The mask's tensors are held to their generator where head 0 of their row reads them: the lengths once a
        // batch entry, the additive mask once an entry. A changed bit is a changed input, like one of x.
        if (a.lengths != nullptr && at.h == 0 && at.q == 0 && it.begin() == 0 && it.lane == 0
            && a.lengths[at.b] != kv_length(seed, kase, at.b, cols)) {
            x_changed++;
            first_bad = min(first_bad, (u64)(r * cols));
        }
        const long long mask_row = (long long)at.b * a.queries + at.q;
        for (int c = it.begin() + it.lane; c < end; c += 32) {
            const long long i = r * cols + c;
            const KEVO_X v = kevo_from_float<KEVO_X>(c == raised_col ? raised : kv_value(seed, kase, r, c, cols));
            bool bad = false;
            if (kv_bits(x[i]) != kv_bits(v)) { x_changed++; bad = true; }
            if (a.mask != nullptr && at.h == 0
                && kv_bits(a.mask[mask_row * cols + c])
                   != kv_bits(kevo_from_float<KEVO_X>(kv_mask_value(seed, kase, mask_row, c, cols)))) {
                x_changed++;
                bad = true;
            }
            const KEVO_Y stored = y[i];
            const float got = kevo_to_float(stored);
            const double score = kv_score(a, at, c, (double)kevo_to_float(v));
            const double ref = kv_expected(score, row_stat);
            // ref as y's type holds it, rounded to nearest: infinite where ref is, and where ref lies past the type's
            // largest finite value. The whole-case errors are over the answers it holds finitely.
            const double held = (double)kevo_to_float(kevo_from_float<KEVO_Y>((float)ref));
            const double bound = abs_tol + rel_tol * fabs(ref) + kv_ulp(KEVO_Y{}, ref);
            if (kv_bits(stored) == KV_POISON_Y_ELEMENT) { unwritten++; bad = true; }
            else if (isinf(ref) || kv_exact(score)) {
                // An infinite answer (a log-probability of a masked entry), or one the operator holds exact (a masked
                // entry's 0), is right only exactly.
                if ((double)got != ref) {
                    if (isnan(got) || isinf(got)) nonfinite++; else violations++;
                    bad = true;
                }
            }
            else if (isnan(got) || (isinf(got) && !(signbit(got) == signbit(ref) && kv_may_overflow(ref, bound)))) {
                nonfinite++;
                bad = true;
            }
            else if (!isinf(got)) {
                const double err = fabs((double)got - ref);
                if (!isinf(held)) err_sq += err * err;
                max_err = fmax(max_err, err);
                if (err > bound) { violations++; bad = true; }
            }
            if (!isinf(held)) {
                const double best = held - ref;
                round_sq += best * best;
                ref_sq += ref * ref;
            }
            if (bad && (u64)i < first_bad) first_bad = (u64)i;
        }
    }
    kv_publish(out, KevoCheck{unwritten, nonfinite, violations, x_changed, first_bad, err_sq, ref_sq, 0, round_sq},
               max_err, scratch);
}

// Zeroes n results for kevo_compare to add up into.
extern "C" __global__ void kevo_clear_checks(KevoCheck* out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        KevoCheck zero = {};
        zero.first_bad = ~0ull;
        out[k] = zero;
    }
}

// Counts words of a guard zone that no longer hold their pattern.
extern "C" __global__ void kevo_guard_check(const unsigned* guard, long long words, unsigned pattern, u64* damaged) {
    u64 bad = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < words; i += (long long)gridDim.x * blockDim.x) {
        if (guard[i] != pattern) bad++;
    }
    if (bad) atomicAdd(damaged, bad);
}

// Adds to *out an order-independent digest of n output words: two outputs that differ in any bit give different
// digests (but for a 2^-64 chance), and the digest of one output is the same however its blocks are scheduled,
// since it is an integer sum.
extern "C" __global__ void kevo_digest(const unsigned* y, long long n, u64* out) {
    u64 acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        acc += kv_mix(kv_mix((u64)i) ^ y[i]);
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(KEVO_FULL_MASK, acc, o);
    if ((threadIdx.x & 31) == 0 && acc) atomicAdd(out, acc);
}

// Evicts L2 between timed launches by reading a buffer twice its size. Reading, not writing: a write-flush
// leaves L2 full of dirty lines that the next (timed) kernel pays to write back, which made a 5 us kernel's
// median move by several percent from one evaluation to the next.
// With pinned != 0 the reads carry an L2 evict_last policy: a line that a candidate loaded under evict_last
// (createpolicy + ld.global.L2::cache_hint) outlives any number of evict_normal reads, because L2 picks its victims
// among the normal lines first; read at the same priority, the flush pushes it out like any other line. kevo_demote
// then takes the flush's own lines back to evict_normal, so the flush leaves no pinned lines behind either.
// Before sm_80 there are no eviction-priority hints to outlive, and no instructions for them: plain reads.
extern "C" __global__ void kevo_flush(const float4* buffer, long long n, float* sink, int pinned) {
    float acc = 0.0f;
#if __CUDA_ARCH__ >= 800
    if (pinned) {
        unsigned long long policy;
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
            float4 v;
            asm volatile("ld.global.cg.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(buffer + i), "l"(policy));
            acc += v.x + v.y + v.z + v.w;
        }
        if (acc == 1.0e30f) *sink = acc;
        return;
    }
#endif
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        float4 v = __ldcg(buffer + i);
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1.0e30f) *sink = acc;  // practically never true, but the compiler cannot know: the reads stay
}

// Sets every L2 line of up to three ranges [base, base + lines * 128) that is present back to evict_normal (PTX
// applypriority; a line not in L2 is left alone). Run over the flush buffer after kevo_flush, and over the memory a
// candidate can address (the input set it read, y, the workspace) after each of its launches while timing, so that
// no line it pinned with an evict_last hint survives into a later timed launch (its own, or the baseline's).
__device__ __forceinline__ void kv_demote_range(const char* base, long long lines) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < lines; i += (long long)gridDim.x * blockDim.x) {
#if __CUDA_ARCH__ >= 800
        asm volatile("applypriority.global.L2::evict_normal [%0], 128;" :: "l"(base + i * 128) : "memory");
#endif
    }
}

// Up to five ranges (a candidate's input set, y, workspace and the other input sets where they all fit in L2) in one
// launch, and poison_words of poison set to a quiet NaN: after a checked launch the reference's row statistics go in
// the same launch, so no answer stays in memory for the candidate's next launch to find.
extern "C" __global__ void kevo_demote(const char* a, long long a_lines, const char* b, long long b_lines,
                                       const char* c, long long c_lines, const char* d, long long d_lines,
                                       const char* e, long long e_lines, unsigned* poison, long long poison_words) {
    kv_demote_range(a, a_lines);
    kv_demote_range(b, b_lines);
    kv_demote_range(c, c_lines);
    kv_demote_range(d, d_lines);
    kv_demote_range(e, e_lines);
    kv_fill(poison, poison_words, KEVO_POISON_WS);
}

// Holds the stream until the host has queued a stretch of timed launches (a round) and opened the gate, so that no
// timed region contains a gap where the GPU waited for the host to launch the next kernel (the blocking-kernel
// technique of NVIDIA's nvbench). Each gate has a ticket; the host opens it by raising the word to that ticket, so the
// GPU can run one round while the host queues the next behind the next gate. The word lives in mapped host memory,
// read uncached through volatile. It gives up after ~1 s so that a host that never opens the gate costs a wrong
// timing, not a hung worker.
extern "C" __global__ void kevo_gate(volatile int* gate, int ticket) {
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*gate < ticket) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > 1000000000ull) break;
        __nanosleep(1000);
    }
}

// The second of the two copies the memory floor is taken from (the first is cuMemcpyDtoD): n elements of x to y,
// 16-byte loads and stores over a grid-stride loop, scalar tail. x and y are 16-byte aligned. Where y's type is wider
// than x's (bf16 in, float out) it converts, reading and writing exactly the bytes a softmax must.
template <class X, class Y> __device__ __forceinline__ void kv_copy(const X* __restrict__ x, Y* __restrict__ y,
                                                                    long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long done;
    if constexpr (sizeof(X) == sizeof(Y)) {
        const long long vectors = n * (long long)sizeof(X) / 16;
        const uint4* x4 = reinterpret_cast<const uint4*>(x);
        uint4* y4 = reinterpret_cast<uint4*>(y);
        for (long long i = first; i < vectors; i += stride) y4[i] = x4[i];
        done = vectors * 16 / (long long)sizeof(X);
    } else {
        const long long groups = n / 8;
        for (long long i = first; i < groups; i += stride) {
            float v[8];
            kevo_load8(x + 8 * i, v);
            float4* out = reinterpret_cast<float4*>(y + 8 * i);
            out[0] = make_float4(v[0], v[1], v[2], v[3]);
            out[1] = make_float4(v[4], v[5], v[6], v[7]);
        }
        done = groups * 8;
    }
    for (long long i = done + first; i < n; i += stride) y[i] = kevo_from_float<Y>(kevo_to_float(x[i]));
}

extern "C" __global__ void kevo_copy(const KEVO_X* __restrict__ x, KEVO_Y* __restrict__ y, long long n) {
    kv_copy(x, y, n);
}
