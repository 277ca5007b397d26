// softmax_backward's reference: dx = y * (dy - dot), dot = sum(y * dy) over the row (row_dot.cu, compiled just before
// this). Where y is 0 (masked, or underflowed) dx is exactly 0.

__device__ __forceinline__ double kv_term(double y, double dy) { return y * dy; }

// What scales the row's dot product (and its rounding) back onto an element.
__device__ __forceinline__ double kv_weight(double y) { return y; }

__device__ __forceinline__ double kv_backward(double y, double dy, double2 dot) { return y * (dy - dot.x); }
