// masked_softmax's reference: the row statistic is softmax's (row_max_sum.cu, compiled just before this) over the
// scores (masked_softmax_scores.cu: scale * x + mask as float32 holds it, or -inf where the shape's mask kind masks
// it); an element's output is exp(score - max) / sum, and exactly 0 where its score is -inf, which a row with no score
// left (fully masked) is throughout, as PyTorch's SDPA writes it.

// (max, 1 / sum), and (-inf, 0) for a row with no score left.
__device__ __forceinline__ double2 kv_row_prepare(double2 s) {
    return make_double2(s.x, s.x == -(double)KEVO_INF ? 0.0 : 1.0 / s.y);
}

__device__ __forceinline__ double kv_expected(double v, double2 row) {
    return v == -(double)KEVO_INF ? 0.0 : exp(v - row.x) * row.y;
}
