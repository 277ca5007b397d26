package dev.kevo.eval;

import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Kernel files a backward operator's evaluation must reject, written for the operator asked (float32, a block a row):
 * they live beside the tests rather than under evaluator/adversarial, whose corpus is softmax's. BackwardGpuTest judges
 * them; BackwardKernelFilesTest holds them to the contract and to NVRTC where there is no GPU, so that a GPU run fails
 * only on what it is to find.
 */
final class BackwardKernelFiles {
    private BackwardKernelFiles() {
    }

    private static boolean log(Operator op) {
        return op == Operators.LOG_SOFTMAX_BACKWARD;
    }

    /** A kernel file for {@code op}, fp32, one block a row, whose body is {@code body} (after a block-wide sum). */
    private static Path kernel(Operator op, String description, String globals, String body) throws IOException {
        String source = """
                /*@kevo
                {
                  "op": "%s",
                  "description": "%s",
                  "dtype": ["fp32"],
                  "plans": [ { "when": "true",
                    "launches": [ { "kernel": "wrong_backward", "grid": "rows", "block": 256,
                                    "args": ["y", "dy", "dx", "rows", "cols"] } ] } ]
                }
                */
                #include "kevo.h"

                __device__ __forceinline__ float block_sum(float v, float* partial) {
                    v = kevo_warp_sum(v);
                    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
                    if (lane == 0) partial[warp] = v;
                    __syncthreads();
                    v = lane < (int)(blockDim.x >> 5) ? partial[lane] : 0.0f;
                    return kevo_warp_sum(v);
                }
                %s
                extern "C" __global__ void wrong_backward(const float* y, const float* dy, float* dx, int rows,
                                                          int cols) {
                    __shared__ float partial[32];
                    const size_t off = (size_t)blockIdx.x * cols;
                    const float* yr = y + off;
                    const float* dyr = dy + off;
                    float* dxr = dx + off;
                %s
                }
                """.formatted(op.id(), description, globals, body);
        Path file = Files.createTempFile(op.id() + "-wrong", ".cu");
        Files.writeString(file, source);
        return file;
    }

    /** The row's term of the dot product, and dx from y, dy and a statistic {@code s}, in CUDA. */
    private static String term(Operator op) {
        return log(op) ? "g" : "p * g";
    }

    private static String dx(Operator op) {
        return log(op) ? "g - expf(p) * s" : "p * (g - s)";
    }

    /**
     * dy's mean in place of the dot product (sum(y * dy), or sum(dy)): off by about the hot entry's dy on every row whose
     * y is not flat, far beyond the bound relative to dy's scale.
     */
    static Path meanForDot(Operator op) throws IOException {
        return kernel(op, "wrong: dy's mean in place of the dot product", "", """
                    float s = 0.0f;
                    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += dyr[c];
                    s = block_sum(s, partial) / (float)cols;
                    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
                        const float p = yr[c], g = dyr[c];
                        dxr[c] = %s;
                    }
                """.formatted(dx(op)));
    }

    /**
     * A correct kernel that memoises each row's dx under a key hashed from the row's whole y and its first 8 elements
     * of dy, and replays it when the key comes back, as it does when timing rotates over a few input sets. The whole
     * y, so that no two checked cases share a key (they share their first elements where dy is sparse or one-hot,
     * and a key of those replays a wrong row while checking: seen on the H100); 8 of dy's, so that a timed launch's
     * salt, one element of dy a row, is mostly outside the key and the row is replayed (a key of the whole dy sees
     * the salt, computes anew, and is right).
     */
    static Path memo(Operator op) throws IOException {
        String globals = """
                #define SLOTS 4
                #define CACHE_FLOATS (1 << 22)
                #define CACHE_ROWS (1 << 16)
                __device__ float cache[SLOTS][CACHE_FLOATS];
                __device__ unsigned long long keys[SLOTS][CACHE_ROWS];
                """;
        return kernel(op, "adversarial: memoises each row's dx under a hash of its y and first 8 dy", globals, """
                    __shared__ int hit;
                    __shared__ unsigned long long key;
                    const int row = blockIdx.x;
                    const bool cacheable = (long long)rows * cols <= CACHE_FLOATS && rows <= CACHE_ROWS;
                    if (cacheable) {
                        if (threadIdx.x == 0) {
                            unsigned long long h = 1469598103934665603ull ^ (unsigned long long)cols;
                            for (int c = 0; c < cols; c++) {
                                h ^= __float_as_uint(yr[c]);
                                h *= 1099511628211ull;
                                if (c < 8) {
                                    h ^= __float_as_uint(dyr[c]);
                                    h *= 1099511628211ull;
                                }
                            }
                            key = h | 1ull;
                            hit = -1;
                            for (int k = 0; k < SLOTS; k++) {
                                if (*(volatile unsigned long long*)&keys[k][row] == key) hit = k;
                            }
                        }
                        __syncthreads();
                        if (hit >= 0) {
                            for (int c = threadIdx.x; c < cols; c += blockDim.x) dxr[c] = cache[hit][off + c];
                            return;
                        }
                    }
                    float s = 0.0f;
                    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
                        const float p = yr[c], g = dyr[c];
                        s += %s;
                    }
                    s = block_sum(s, partial);
                    const int slot = cacheable ? (int)((key >> 1) %% SLOTS) : 0;
                    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
                        const float p = yr[c], g = dyr[c];
                        const float v = %s;
                        dxr[c] = v;
                        if (cacheable) cache[slot][off + c] = v;
                    }
                    if (cacheable) {
                        __syncthreads();
                        if (threadIdx.x == 0) { __threadfence(); keys[slot][row] = key; }
                    }
                """.formatted(term(op), dx(op)));
    }
}
