// The backward family's row statistic: (sum of the row's terms, sum of their magnitudes) in float64, where a term is
// y * dy (softmax's backward) or dy (log_softmax's), defined by the operator's own file as kv_term. The first is the
// dot product an element's dx is taken of; the second is what float32 rounding of that dot product is proportional
// to, which scales the tolerance (RowDot on the CPU). Both fold and merge by addition, in any order and from any split
// of the row. Compiled after the harness; the backward's own kernels (eval/harness_backward.cu, compiled after this)
// walk the rows of y and dy with these functions.

__device__ __forceinline__ double kv_term(double y, double dy);

__device__ __forceinline__ double2 kv_dot_start() { return make_double2(0.0, 0.0); }

__device__ __forceinline__ double2 kv_dot_add(double2 s, double y, double dy) {
    const double t = kv_term(y, dy);
    return make_double2(s.x + t, s.y + fabs(t));
}

__device__ __forceinline__ double2 kv_dot_merge(double2 s, double2 t) { return make_double2(s.x + t.x, s.y + t.y); }
