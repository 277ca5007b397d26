// kevo's own kernels for cross_entropy, the fused loss: its labels, the float64 loss, and the comparison of dx and of
// the loss, launched by the evaluator's CrossEntropyKernels beside the forward's generation of x and its row statistics;
// compiled after the harness (harness.cu: the generators, kv_label, the row walk, the ulp), the unmasked score and
// the operator's reference (row_max_sum.cu and log_softmax.cu: a row's (max, log(sum)) and an element's
// log-probability), in that order. CrossEntropyReference is the same operator on the CPU.

// torch's default ignore_index.
#define KV_IGNORE_INDEX (-100ll)
// What the loss and dx are divided by: the live rows for the mean (KV_CE_MEAN 1, cross_entropy), 1 for the sum
// (cross_entropy_sum); the operator's reference source, compiled before this file, defines KV_CE_MEAN.
#if KV_CE_MEAN
#define KV_CE_DIVISOR(live) (live)
#else
#define KV_CE_DIVISOR(live) 1.0
#endif
// The ignored rows' own counters.
#define KV_IGNORE_STREAM 0x69676E6F72652D6Bull

// Row r's label: ignored for about one row in eight, but never a drawn row of each case, so that every case keeps a
// live row (a shape of one row is then live, and timed launches, which take ordinary cases, time a row's work, not an
// ignored row's zeros: a one-row shape timed on an ignored row and checked on a live one was rejected as slow when
// checked); every row is ignored in the constant case (no live row: the mean is 0 / 0, NaN, as torch gives, and dx is
// 0 throughout). Else kv_label's finite column, moved to column 0 where it falls on the lowest-mask case's masked
// value (a label there has a loss of about 3.4e38, which no training sees; the row's column 0 is in its finite
// prefix, or the row is masked throughout and every column is alike).
__device__ __forceinline__ long long kv_ce_label(u64 seed, int kase, long long r, int rows, int cols) {
    const u64 s = kv_mix(seed ^ KV_IGNORE_STREAM);
    if (kase == KEVO_CASE_CONSTANT
        || (kv_row_draw(s, r, 0) % 8 == 0 && r != (long long)(kv_draw(s, ~0ull) % (u64)rows))) {
        return KV_IGNORE_INDEX;
    }
    const long long c = kv_label(seed, kase, r, cols);
    return kase == KEVO_CASE_LOWEST_MASK && kv_value(seed, kase, r, c, cols) == kv_lowest(KEVO_X{}) ? 0 : c;
}

extern "C" __global__ void kevo_generate_labels(long long* labels, int rows, int cols, u64 seed, int kase) {
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows; r += (long long)gridDim.x * blockDim.x) {
        labels[r] = kv_ce_label(seed, kase, r, rows, cols);
    }
}

// The loss's float64 totals, after the row statistics (stats[r]: max and sum of exp(x - max)), into totals (two
// double2 past the rows' statistics): (sum of the live rows' lse - x[label], sum of |max - x[label]| + log(sum) + 1) and
// (live rows, 0). The loss is taken as (max - x[label]) + log(sum), as log_softmax's reference takes a
// log-probability: lse itself absorbs log(sum) where the row's maximum is huge (the lowest-mask case's fully masked
// rows, whose loss is log(cols)). Its scale is what a float32 computation in that order errs in proportion to. One block in a fixed order, so that the reference is the same number however often it is computed. It
// reads x at the generated labels (never at a label the candidate may have written: kevo_compare_cross_entropy
// holds both to the generator) as it is after the launch, salted or not, like the statistics.
extern "C" __global__ void kevo_cross_entropy_totals(double2* totals, const double2* stats, const KEVO_X* x, int rows,
                                                     int cols, u64 seed, int kase) {
    __shared__ double scratch[KV_THREADS];
    double loss = 0.0, scale = 0.0, live = 0.0;
    for (long long r = threadIdx.x; r < rows; r += KV_THREADS) {
        const long long label = kv_ce_label(seed, kase, r, rows, cols);
        if (label == KV_IGNORE_INDEX) continue;
        const double2 row = kv_row_prepare(stats[r]);
        const double v = (double)kevo_to_float(x[r * cols + label]);
        loss -= kv_expected(v, row);  // -((v - max) - log(sum))
        scale += fabs(row.x - v) + row.y + 1.0;  // + 1: log of a float sum >= 1 errs absolutely
        live += 1.0;
    }
    loss = kv_block_sum(loss, scratch);
    scale = kv_block_sum(scale, scratch);
    live = kv_block_sum(live, scratch);
    if (threadIdx.x == 0) {
        totals[0] = make_double2(loss, scale);
        totals[1] = make_double2(live, 0.0);
    }
}

// dx and the loss against the reference, into the harness's KevoCheck.
// - x and the labels are held to the generator bit for bit (x under the launch's salt).
// - dx = g (p - onehot(label)) / n for a live row (n the live rows, for the mean; 1 for the sum), exactly 0 for an ignored one and
//   wherever no row is live. Per element, the bound is softmax's on p scaled by |g| / n, (abs_tol + rel_tol p) |g| / n,
//   plus dx's ulp and what flushing subnormals costs (FLT_MIN (1 + |g| / n)); where p is about 1 at the label,
//   p - 1 cancels and its error is still p's. The case's L2 is taken against |g| / n (p + onehot), for the same
//   reason: a dominated row's dx is about 0 everywhere.
// - The loss is one float: the mean of the live rows' lse - x[label], NaN where none is live (the sum: 0). It must be within
//   loss_tol of the loss's scale (the mean of |max - x[label]| + log(sum) + 1) plus its ulp. A wrong or unwritten loss counts as an element at index rows * cols (first_bad),
//   one past dx.
extern "C" __global__ void kevo_compare_cross_entropy(const KEVO_Y* dx, const unsigned* loss, const KEVO_X* x,
                                                      const long long* labels, const double2* stats, int rows,
                                                      int cols, int chunk_cols, int chunks, u64 seed, int kase,
                                                      u64 salt, float g, double abs_tol, double rel_tol,
                                                      double loss_tol, KevoCheck* out) {
    __shared__ double scratch[KV_THREADS];
    const double2* totals = stats + rows;
    const double live = totals[1].x;
    const double per = live > 0.0 ? (double)g / KV_CE_DIVISOR(live) : 0.0;
    u64 unwritten = 0, nonfinite = 0, violations = 0, x_changed = 0, first_bad = ~0ull;
    double err_sq = 0.0, scale_sq = 0.0, max_err = 0.0, round_sq = 0.0;
    for (KvItems it(rows, cols, chunk_cols, chunks); it.b < it.items; it.b += it.warps) {
        const long long r = it.row();
        const long long label = kv_ce_label(seed, kase, r, rows, cols);
        if (it.begin() == 0 && it.lane == 0 && labels[r] != label) {
            x_changed++;
            first_bad = min(first_bad, (u64)(r * cols));
        }
        const long long raised_col = salt != 0 ? kv_salt_col(salt, r, cols) : -1;
        const float raised = salt != 0 ? kv_salt_value(salt, r, kase) : 0.0f;
        const double2 row = kv_row_prepare(stats[r]);
        const bool ignored = label == KV_IGNORE_INDEX;
        const int end = it.end();
        for (int c = it.begin() + it.lane; c < end; c += 32) {
            const long long i = r * cols + c;
            const KEVO_X v = kevo_from_float<KEVO_X>(c == raised_col ? raised : kv_value(seed, kase, r, c, cols));
            bool bad = false;
            if (kv_bits(x[i]) != kv_bits(v)) { x_changed++; bad = true; }
            const double p = ignored ? 0.0 : exp(kv_expected((double)kevo_to_float(v), row));
            const double hot = c == label ? 1.0 : 0.0;
            const double ref = ignored ? 0.0 : per * (p - hot);
            const double scale = fabs(per) * (p + hot);
            const double held = (double)kevo_to_float(kevo_from_float<KEVO_Y>((float)ref));
            const double bound = fabs(per) * (abs_tol + rel_tol * p) + kv_ulp(KEVO_Y{}, ref)
                                 + (double)FLT_MIN * (1.0 + fabs(per));
            const KEVO_Y stored = dx[i];
            const float got = kevo_to_float(stored);
            if (kv_bits(stored) == KV_POISON_Y_ELEMENT) { unwritten++; bad = true; }
            else if (kv_judge_scaled(got, ref, bound, ignored || per == 0.0, nonfinite, violations, err_sq, max_err)) {
                bad = true;
            }
            const double best = held - ref;
            round_sq += best * best;
            scale_sq += scale * scale;
            if (bad && (u64)i < first_bad) first_bad = (u64)i;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const u64 at = (u64)rows * (u64)cols;
        const float got = __uint_as_float(*loss);
        if (*loss == KEVO_POISON_REDUCED) { unwritten++; first_bad = min(first_bad, at); }
        else if (live == 0.0) {  // the mean: 0 / 0, NaN, as torch gives; the sum: 0
            if (KV_CE_MEAN ? !isnan(got) : got != 0.0f) { violations++; first_bad = min(first_bad, at); }
        }
        else if (isnan(got) || isinf(got)) { nonfinite++; first_bad = min(first_bad, at); }
        else {
            const double ref = totals[0].x / KV_CE_DIVISOR(live);
            const double bound = loss_tol * totals[0].y / KV_CE_DIVISOR(live) + kv_ulp(0.0f, ref);
            if (fabs((double)got - ref) > bound) { violations++; first_bad = min(first_bad, at); }
        }
    }
    // The case's L2 is against the scales, not dx (about 0 on dominated rows): ref_sq holds them.
    kv_publish(out, KevoCheck{unwritten, nonfinite, violations, x_changed, first_bad, err_sq, scale_sq, 0, round_sq},
               max_err, scratch);
}
