// The test operator y = x: no row statistic, and every element's answer is its input.
__device__ __forceinline__ double2 kv_stat_start() { return make_double2(0.0, 0.0); }
__device__ __forceinline__ double2 kv_stat_add(double2 s, double) { return s; }
__device__ __forceinline__ double2 kv_stat_merge(double2 s, double2) { return s; }
__device__ __forceinline__ double2 kv_row_prepare(double2 s) { return s; }
__device__ __forceinline__ double kv_expected(double v, double2) { return v; }
