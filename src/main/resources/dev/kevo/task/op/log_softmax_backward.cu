// log_softmax_backward's reference: dx = dy - exp(y) * dot, dot = sum(dy) over the row (row_dot.cu, compiled just
// before this). Where y is -inf (masked) exp(y) is 0 and dx is exactly dy.

__device__ __forceinline__ double kv_term(double, double dy) { return dy; }

// What scales the row's dot product (and its rounding) back onto an element: the probability.
__device__ __forceinline__ double kv_weight(double y) { return exp(y); }

__device__ __forceinline__ double kv_backward(double y, double dy, double2 dot) { return dy - exp(y) * dot.x; }
