// The score of an element for operators without a scale or a mask (softmax, log_softmax, and any operator that does
// not say otherwise: Operator.scoreSource()): the element itself, and no answer held exact beyond an infinite one
// (the harness's own rule). Compiled after eval/harness.cu, which declares these functions and their types.
__device__ __forceinline__ double kv_score(const KvAttention&, const KvRowAt&, int, double x) { return x; }
__device__ __forceinline__ bool kv_exact(double) { return false; }
