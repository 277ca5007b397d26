/*@kevo {"plans": [{"launches": [{"kernel": "softmax", "grid": "rows", "block": 32, "args": ["x", "y", "rows", "cols"]}]}]} */
// A compile bomb: 2^22 distinct template instantiations, each inlined into the next.
template <int N, int M> struct Bomb {
    static __device__ __forceinline__ float f(float v) { return Bomb<N - 1, 2 * M>::f(v) + Bomb<N - 1, 2 * M + 1>::f(v * 0.5f); }
};
template <int M> struct Bomb<0, M> {
    static __device__ __forceinline__ float f(float v) { return v + (float)M; }
};
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    y[blockIdx.x] = Bomb<22, 0>::f(x[blockIdx.x]);
}
