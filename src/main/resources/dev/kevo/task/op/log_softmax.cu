// log_softmax's reference: from the row's (max, sum of exp(x - max)) (row_max_sum.cu, compiled just before this), an
// element's output is (x - max) - log(sum).

// (max, log(sum)): one log a row, not one an element.
__device__ __forceinline__ double2 kv_row_prepare(double2 s) { return make_double2(s.x, log(s.y)); }

// x - max first: exact where x is near the maximum, and 0 for a row masked throughout with one finite value (the
// lowest-mask case's), whose answer is then -log(cols). A masked entry (-inf) gives -inf, held to exactly.
__device__ __forceinline__ double kv_expected(double v, double2 row) { return (v - row.x) - row.y; }
