// softmax's reference: from the row's (max, sum of exp(x - max)) (row_max_sum.cu, compiled just before this), an
// element's output is exp(x - max) / sum.

// (max, 1 / sum): one division a row, not one an element.
__device__ __forceinline__ double2 kv_row_prepare(double2 s) { return make_double2(s.x, 1.0 / s.y); }

__device__ __forceinline__ double kv_expected(double v, double2 row) { return exp(v - row.x) * row.y; }
