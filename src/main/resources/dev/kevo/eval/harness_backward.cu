// kevo's own kernels for a backward operator (softmax_backward, log_softmax_backward): the consistent inputs y and dy,
// the float64 dot product of each row, and the comparison of dx, launched by the evaluator's BackwardKernels in place
// of the forward's generation, reference and comparison; compiled after the harness (harness.cu: the generators, the
// row walk, the ulp), the forward's score and reference (its kv_stat_*, kv_row_prepare and kv_expected: what y is),
// and the backward's own reference (row_dot.cu and the operator's file: kv_dot_*, kv_term, kv_weight, kv_backward), in
// that order (TrustedKernels.source). BackwardInputs is the same generation on the CPU.

// dy's own counters, far from x's and the mask's.
#define KV_DY_STREAM 0x64792D6B65766F21ull

// The kinds of gradient, one a row: row r is of kind r % 4, so every input case of x meets every kind.
#define KV_DY_NORMAL 0  // standard normal everywhere, masked entries too
#define KV_DY_SPARSE 1  // about 90% exact zeros, the rest normal
#define KV_DY_LOSS 2    // p - onehot(label): a squared error's gradient on the probabilities
#define KV_DY_NLL 3     // -onehot(label) / rows: mean NLL's

// y of element (r, c): the forward's float64 answer on x's value there, from the row's forward statistic (already
// prepared), rounded to x's type: what the forward's best kernel would hand the backward.
__device__ __forceinline__ KEVO_X kv_forward_y(u64 seed, int kase, long long r, long long c, int cols, double2 row) {
    const double x = (double)kevo_to_float(kevo_from_float<KEVO_X>(kv_value(seed, kase, r, c, cols)));
    return kevo_from_float<KEVO_X>((float)kv_expected(x, row));
}

// dy of element (r, c), given y there as stored and the row's label; rows the number of rows (NLL's mean).
__device__ __forceinline__ float kv_dy_value(u64 seed, long long r, long long c, int cols, int rows, long long label,
                                             float y) {
    const u64 s = kv_mix(seed ^ KV_DY_STREAM);
    const u64 i = (u64)(r * cols + c);
    switch ((int)(r % 4)) {
        case KV_DY_NORMAL: return kv_normal(s, i);
        case KV_DY_SPARSE: return kv_u01(s, i, 2) < 0.9f ? 0.0f : kv_normal(s, i);
        case KV_DY_LOSS: return (float)kv_weight((double)y) - (c == label ? 1.0f : 0.0f);
        default: return c == label ? -1.0f / (float)rows : 0.0f;
    }
}

// While timing, each launch reads dy with one element per row, at a column drawn from the launch's salt, raised to
// 2 + u: the row's dot product moves (log_softmax's always; softmax's wherever y is not 0 there), so an output
// replayed from an earlier launch is wrong across the row. Salt 0: no change.
__device__ __forceinline__ float kv_dy_salted(u64 salt, long long r) {
    return 2.0f + (float)(kv_mix(salt ^ ~(u64)r) >> 40) * (1.0f / 16777216.0f);
}

// dy of element (r, c) as a launch under salt reads it.
__device__ __forceinline__ KEVO_X kv_dy(u64 seed, u64 salt, long long r, long long c, int cols, int rows,
                                       long long label, KEVO_X y) {
    if (salt != 0 && c == kv_salt_col(salt, r, cols)) return kevo_from_float<KEVO_X>(kv_dy_salted(salt, r));
    return kevo_from_float<KEVO_X>(kv_dy_value(seed, r, c, cols, rows, label, kevo_to_float(y)));
}

// y and dy of a case, from the forward's row statistics of its x (kevo_reference_chunks and _merge run over x
// generated into kevo's own scratch: x itself is never a backward kernel's input, and its statistics are no answer of
// the backward's, so they may stay in memory for the comparison to regenerate y from).
// Items of chunk_cols columns, as the comparison walks them, so that a 10^7-column row spreads over the GPU.
extern "C" __global__ void kevo_generate_backward(KEVO_X* y, KEVO_X* dy, const double2* forward, int rows, int cols,
                                                  int chunk_cols, int chunks, u64 seed, int kase) {
    for (KvItems it(rows, cols, chunk_cols, chunks); it.b < it.items; it.b += it.warps) {
        const long long r = it.row();
        const double2 row = kv_row_prepare(forward[r]);
        const long long label = kv_label(seed, kase, r, cols);
        const int end = it.end();
        for (int c = it.begin() + it.lane; c < end; c += 32) {
            const long long i = r * cols + c;
            const KEVO_X yv = kv_forward_y(seed, kase, r, c, cols, row);
            y[i] = yv;
            dy[i] = kv_dy(seed, 0, r, c, cols, rows, label, yv);
        }
    }
}

// Moves dy from old_salt to new_salt: per row, the old salted element gets its generated value back, then the new one
// is raised. One thread per row.
__device__ __forceinline__ void kv_perturb_dy(KEVO_X* dy, const KEVO_X* y, int rows, int cols, u64 seed, int kase,
                                              u64 old_salt, u64 new_salt) {
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows; r += (long long)gridDim.x * blockDim.x) {
        const long long label = kv_label(seed, kase, r, cols);
        if (old_salt != 0) {
            const long long c = kv_salt_col(old_salt, r, cols);
            dy[r * cols + c] = kv_dy(seed, 0, r, c, cols, rows, label, y[r * cols + c]);
        }
        if (new_salt != 0) {
            const long long c = kv_salt_col(new_salt, r, cols);
            dy[r * cols + c] = kevo_from_float<KEVO_X>(kv_dy_salted(new_salt, r));
        }
    }
}

extern "C" __global__ void kevo_perturb_backward(KEVO_X* dy, const KEVO_X* y, int rows, int cols, u64 seed, int kase,
                                                 u64 old_salt, u64 new_salt) {
    kv_perturb_dy(dy, y, rows, cols, seed, kase, old_salt, new_salt);
}

// Everything queued before one timed launch of a candidate, in one launch, as kevo_prepare is for a forward operator:
// dy moves to its new salt, dx_words of dx get the unwritten-output poison and ws_words of the workspace the workspace
// poison.
extern "C" __global__ void kevo_prepare_backward(KEVO_X* dy, const KEVO_X* y, int rows, int cols, u64 seed, int kase,
                                                 u64 old_salt, u64 new_salt, unsigned* dx, long long dx_words,
                                                 unsigned* ws, long long ws_words) {
    kv_perturb_dy(dy, y, rows, cols, seed, kase, old_salt, new_salt);
    kv_fill(dx, dx_words, KEVO_POISON_Y);
    kv_fill(ws, ws_words, KEVO_POISON_WS);
}

__device__ __forceinline__ double2 kv_dot_warp_merge(double2 s) {
    for (int o = 16; o > 0; o >>= 1) {
        s = kv_dot_merge(s, make_double2(__shfl_xor_sync(KEVO_FULL_MASK, s.x, o), __shfl_xor_sync(KEVO_FULL_MASK, s.y, o)));
    }
    return s;
}

// The rows' dot products in float64, in two steps as the forward's statistics are (kevo_reference_chunks, _merge):
// each item's, then each row's from its chunks, the chunks' poisoned once used. Read after the candidate's launch, as
// the forward's reference reads x: the comparison holds y and dy to the generator bit for bit.
extern "C" __global__ void kevo_dot_chunks(double2* partial, const KEVO_X* y, const KEVO_X* dy, int rows, int cols,
                                           int chunk_cols, int chunks) {
    for (KvItems it(rows, cols, chunk_cols, chunks); it.b < it.items; it.b += it.warps) {
        const long long base = it.row() * cols;
        const int end = it.end();
        double2 s = kv_dot_start();
        for (int c = it.begin() + it.lane; c < end; c += 32) {
            s = kv_dot_add(s, (double)kevo_to_float(y[base + c]), (double)kevo_to_float(dy[base + c]));
        }
        s = kv_dot_warp_merge(s);
        if (it.lane == 0) partial[it.b] = s;
    }
}

extern "C" __global__ void kevo_dot_merge(double2* stats, double2* partial, int rows, int chunks) {
    __shared__ double sx[KV_THREADS], sy[KV_THREADS];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        double2 s = kv_dot_start();
        for (int k = threadIdx.x; k < chunks; k += KV_THREADS) s = kv_dot_merge(s, partial[(long long)r * chunks + k]);
        // Addition, so the block's merge is two block sums.
        s = make_double2(kv_block_sum(s.x, sx), kv_block_sum(s.y, sy));
        if (threadIdx.x == 0) stats[r] = s;
        const double gone = __longlong_as_double(((long long)KEVO_POISON_WS << 32) | KEVO_POISON_WS);
        for (int k = threadIdx.x; k < chunks; k += KV_THREADS) partial[(long long)r * chunks + k] = make_double2(gone, gone);
    }
}

// What flushing float32's subnormals to zero may cost an element: a weight below FLT_MIN (log_softmax's exp(y) past
// y = -87, a softmax y that small) taken as 0, and with it the dot product's and dy's share of the element, at most
// FLT_MIN (|dy| + sum|term|); and an answer below FLT_MIN written as 0, at most FLT_MIN (softmax's y (dy - dot) where
// dy - dot cancels: a squared error's gradient on a dominated row). A kernel built with fast math flushes both; without
// this floor, where dy is 0 (sparse rows) or cancels, the element's scale is itself subnormal, and an answer of 0 would
// fail.
__device__ __forceinline__ double kv_flushed(double dy, double2 dot) {
    return (double)FLT_MIN * (1.0 + fabs(dy) + dot.y);
}

// dx against the reference, into the harness's KevoCheck, with two differences from the forward's comparison: the
// per-element bound is abs_tol times the element's scale (|dy| + w(y) sum|term|: what float32 rounding of the dot
// product and of the element's arithmetic is proportional to) plus rel_tol |ref|, y's ulp and the cost of flushing
// subnormals (kv_flushed), and ref_sq sums the
// scales' squares, so that the case's relative L2 is taken against dy's scale, not against a dx that cancels. Where
// the weight is 0 (softmax's y = 0, log_softmax's y = -inf) the dot product does not reach the element: its answer
// (0, or dy) is held exactly. y and dy are held to the generator bit for bit (y from x's forward statistics, kept).
extern "C" __global__ void kevo_compare_backward(const KEVO_Y* dx, const KEVO_X* y, const KEVO_X* dy,
                                                 const double2* forward, const double2* dots, int rows, int cols,
                                                 int chunk_cols, int chunks, u64 seed, int kase, u64 salt,
                                                 double abs_tol, double rel_tol, KevoCheck* out) {
    __shared__ double scratch[KV_THREADS];
    u64 unwritten = 0, nonfinite = 0, violations = 0, x_changed = 0, first_bad = ~0ull;
    double err_sq = 0.0, scale_sq = 0.0, max_err = 0.0, round_sq = 0.0;
    for (KvItems it(rows, cols, chunk_cols, chunks); it.b < it.items; it.b += it.warps) {
        const long long r = it.row();
        const double2 row = kv_row_prepare(forward[r]);
        const double2 dot = dots[r];
        const long long label = kv_label(seed, kase, r, cols);
        const int end = it.end();
        for (int c = it.begin() + it.lane; c < end; c += 32) {
            const long long i = r * cols + c;
            const KEVO_X yv = kv_forward_y(seed, kase, r, c, cols, row);
            const KEVO_X dyv = kv_dy(seed, salt, r, c, cols, rows, label, yv);
            bool bad = false;
            if (kv_bits(y[i]) != kv_bits(yv) || kv_bits(dy[i]) != kv_bits(dyv)) { x_changed++; bad = true; }
            const double yd = (double)kevo_to_float(yv), dyd = (double)kevo_to_float(dyv);
            const double ref = kv_backward(yd, dyd, dot);
            const double w = kv_weight(yd);
            const double scale = fabs(dyd) + w * dot.y;
            const double held = (double)kevo_to_float(kevo_from_float<KEVO_Y>((float)ref));
            const double bound = abs_tol * scale + rel_tol * fabs(ref) + kv_ulp(KEVO_Y{}, ref)
                                 + kv_flushed(dyd, dot);
            const KEVO_Y stored = dx[i];
            const float got = kevo_to_float(stored);
            if (kv_bits(stored) == KV_POISON_Y_ELEMENT) { unwritten++; bad = true; }
            else if (kv_judge_scaled(got, ref, bound, w == 0.0, nonfinite, violations, err_sq, max_err)) bad = true;
            const double best = held - ref;
            round_sq += best * best;
            scale_sq += scale * scale;
            if (bad && (u64)i < first_bad) first_bad = (u64)i;
        }
    }
    // The case's L2 is against the scales, not dx (which cancels to about 0 on one-hot rows): ref_sq holds them.
    kv_publish(out, KevoCheck{unwritten, nonfinite, violations, x_changed, first_bad, err_sq, scale_sq, 0, round_sq},
               max_err, scratch);
}
