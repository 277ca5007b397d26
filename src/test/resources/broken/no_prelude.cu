/*@kevo
{
  "description": "uses INFINITY without including kevo.h: NVRTC has no math.h, so this does not compile",
  "plans": [ { "launches": [ { "kernel": "fill_neg_inf", "grid": "rows", "block": 256,
                               "args": ["y", "cols"] } ] } ]
}
*/
extern "C" __global__ void fill_neg_inf(float* y, int cols) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = -INFINITY;
}
