// masked_softmax's scores, from the harness's per-row context (eval/harness.cu: the row's batch entry, head and query,
// the mask kind, the scale and the mask's tensors): what the row statistic folds and an output is taken of.

// An additive mask's entry masks its key where it is -inf or the lowest finite value of x's type (Hugging Face's
// torch.finfo(dtype).min): a key masked, not a huge bias, so that a row masked throughout writes 0, not 1/keys.
__device__ __forceinline__ bool kv_masks(float m) { return m == -KEVO_INF || m == kv_lowest(KEVO_X{}); }

// Causal: query q sees keys c <= q + (keys - queries), aligned to the bottom right, so that with fewer queries than
// keys (decode) the last query sees every key, and with more the first queries - keys queries see none. Padding: keys
// at or past the batch entry's length are masked. The score is rounded once to float32, as fma(scale, x, bias) in a
// kernel rounds it: where x is the lowest float a bias is below float's resolution, and every float32 kernel sees the
// row's scores equal where float64 would not.
__device__ __forceinline__ double kv_score(const KvAttention& a, const KvRowAt& at, int c, double x) {
    double bias = 0.0;
    if (a.kind == KEVO_MASK_CAUSAL) {
        if ((long long)c > (long long)at.q + a.keys - a.queries) return -(double)KEVO_INF;
    } else if (a.kind == KEVO_MASK_PADDING) {
        if (c >= a.lengths[at.b]) return -(double)KEVO_INF;
    } else if (a.kind == KEVO_MASK_ADDITIVE) {
        const float m = kevo_to_float(a.mask[((long long)at.b * a.queries + at.q) * a.keys + c]);
        if (kv_masks(m)) return -(double)KEVO_INF;
        bias = (double)m;
    }
    return (double)(float)((double)a.scale * x + bias);
}

// A masked score's 0 is held exactly: a kernel that writes 1/keys on a fully masked row (a mask taken as a bias), or
// anything else there, is wrong however long the row.
__device__ __forceinline__ bool kv_exact(double score) { return score == -(double)KEVO_INF; }

