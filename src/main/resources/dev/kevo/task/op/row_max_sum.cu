// The row statistic of the softmax family: (max, sum of exp(x - max)) in float64, folded in one pass. Softmax and
// log_softmax both use it (each operator's own file then says what an element's output is), so the two references
// cannot drift apart. Compiled after eval/harness.cu, which declares these functions and walks the rows.

// No element yet: a maximum of -inf and an empty sum.
__device__ __forceinline__ double2 kv_stat_start() { return make_double2(-(double)KEVO_INF, 0.0); }

// One pass: a running maximum, and the sum rescaled whenever the maximum grows. -inf entries (masked) add nothing.
__device__ __forceinline__ double2 kv_stat_add(double2 s, double v) {
    if (v > s.x) return make_double2(v, s.y * exp(s.x - v) + 1.0);  // exp(-inf) = 0 for the first finite element
    if (v != -(double)KEVO_INF) s.y += exp(v - s.x);
    return s;
}

// Two parts of a row: each sum rescaled to the larger maximum; a part with nothing finite adds nothing.
__device__ __forceinline__ double2 kv_stat_merge(double2 s, double2 t) {
    const double m = fmax(s.x, t.x);
    if (m == -(double)KEVO_INF) return kv_stat_start();
    const double sum = (s.x == -(double)KEVO_INF ? 0.0 : s.y * exp(s.x - m))
                     + (t.x == -(double)KEVO_INF ? 0.0 : t.y * exp(t.x - m));
    return make_double2(m, sum);
}
